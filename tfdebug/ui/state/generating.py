"""Generation in the controller: Next Token, Run to Token, going to a step, the growing token stream.

`GenerationMixin` is part of `DebugController`; a live generation is a session whose
`is_generation` is true (a GenerationSession, or a RemoteSession serving one), a recorded one is recognised by its
`gen.{t}.` stage names.
"""

from __future__ import annotations

from tfdebug.core.names import parse_name
from tfdebug.ui.i18n.language import said


class GenerationMixin:
    """Token-level commands and the token strip's data; state lives on the controller."""

    @property
    def tokens(self) -> dict[str, list[str]]:
        """Token strings per stream. A live generation's stream grows with every chosen token: it is
        read from the session each time, so a later step's axes get their words, not indices."""
        if self.is_generating():
            return self.session.tokens
        return self._tokens

    def is_generating(self) -> bool:
        """Whether the live pass is a generation (Next Token and Run to Token apply)."""
        return self.source is not None and self.source.is_generation

    def next_token(self) -> bool:
        """Run to the end of this step: the next step reads the token just chosen."""
        session = self.session
        return self._on_stepper(lambda s: session.next_token())

    def run_to_token(self, n: int) -> bool:
        """Run until generated token `n` (1 = the first) has been chosen."""
        session = self.session
        return self._on_stepper(lambda s: session.run_to_token(n))

    def goto_step(self, step: int) -> bool:
        """Show the first stage of generation step `step` (live or recorded): through history when
        it has run, else run to it."""
        name = next((n for n in self.plan.names() if parse_name(n).step == step), None)
        if name is None:
            self.error.emit(said(lambda: self.tr("This generation has no step {0}.").format(step)))
            return False
        return self.run_to(name)

    def generation_entries(self) -> list:
        """The token strip's entries (TokenEntry): the live session's, with probabilities and
        alternatives, else a recording's tokens."""
        if self.is_generating():
            return self.session.entries()
        from tfdebug.ui.state.generation_data import strip_from_tokens

        return strip_from_tokens(self.plan, self._tokens)
