"""The Tree-of-Reasoning as a self-contained HTML page: :func:`render_page`, :func:`write_page`."""

from searchain.page.render import render_page, why, write_page

__all__ = ["render_page", "why", "write_page"]
