"""Short attachment ids (A1, A2, ...) for the reconciliation prompt, so the model never sees UUIDs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engram.domain.models import Attachment, Fact
from engram.domain.steps import CandidateFact


@dataclass
class AttachmentCodes:
    to_short: dict[str, str] = field(default_factory=dict)
    to_id: dict[str, str] = field(default_factory=dict)

    @classmethod
    def build(cls, existing: Sequence[Fact], facts: Sequence[CandidateFact]) -> AttachmentCodes:
        codes = cls()
        for attachment_id in [a for f in existing for a in f.attachment_ids] + [
            a for c in facts for a in c.attachment_ids
        ]:
            if attachment_id not in codes.to_short:
                short = f"A{len(codes.to_short) + 1}"
                codes.to_short[attachment_id] = short
                codes.to_id[short] = attachment_id
        return codes

    def __bool__(self) -> bool:
        return bool(self.to_short)

    def short(self, attachment_ids: Sequence[str]) -> list[str]:
        return [self.to_short[a] for a in attachment_ids if a in self.to_short]

    def resolve(self, shorts: Sequence[object]) -> tuple[list[str], list[str]]:
        """Real ids for the short ids the model gave, and the ones it made up."""
        known: list[str] = []
        unknown: list[str] = []
        for short in shorts:
            real = self.to_id.get(str(short).strip().upper())
            if real is None:
                unknown.append(str(short))
            elif real not in known:
                known.append(real)
        return known, unknown

    def legend(self, details: Mapping[str, Attachment]) -> str:
        lines = []
        for attachment_id, short in self.to_short.items():
            att = details.get(attachment_id)
            if att is None:
                lines.append(f"{short}: (no details)")
                continue
            about = f" - {att.description}" if att.description else ""
            lines.append(f"{short}: {att.name} ({att.media_type}){about}")
        return "\n".join(lines)
