"""The lexical verifier: the offline default, containment on word boundaries (no model)."""

from __future__ import annotations

from searchain.support import Support, lexical_verdict
from searchain.types import Passage


class LexicalVerifier:
    """Verdicts by :func:`searchain.support.lexical_verdict`; it cannot judge entailment."""

    name = "lexical"

    def verdict(
        self,
        passage: Passage,
        query: str,
        answer: str,
        reader_answer: str = "",
        *,
        long_form: bool,
        alpha: float,
    ) -> Support:
        """Whether ``passage``'s text states ``answer`` (titles are not read)."""
        return lexical_verdict(
            passage.text, answer, reader_answer, query, long_form=long_form, alpha=alpha
        )
