"""The Tree-of-Reasoning as a self-contained HTML page: :func:`render_page`, :func:`write_page`."""

from searchain.page.render import is_page, render_page, why, write_page

__all__ = ["is_page", "render_page", "why", "write_page"]
