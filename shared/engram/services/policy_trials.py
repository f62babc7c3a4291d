"""A sentence tried against a tenant's memory policy (POST /v1/config/policy/test): the decision the
include/exclude screen (pipeline/policy_screen.py) takes on each clause, and the scores it read, with
nothing stored. The policy is the stored one (with the user's own exclusions when a user is named) or
one given to try."""

from __future__ import annotations

from engram.domain.models import MemoryBank
from engram.domain.policy import MemoryPolicy
from engram.domain.policy_trial import ClauseVerdict, EntryScore, PolicyTrial, PolicyTrialAnswer
from engram.pipeline.policy_screen import NOT_INCLUDED, PolicyScreen
from engram.pipeline.topic_meaning import Scores, TopicMeaning
from engram.services.tenant_config import TenantConfigs

_BANKS = {bank.value.lower(): bank for bank in MemoryBank}


class PolicyTrials:
    def __init__(self, configs: TenantConfigs, meaning: TopicMeaning | None) -> None:
        self._configs = configs
        self._meaning = meaning

    def policy(self, tenant_id: str, trial: PolicyTrial) -> MemoryPolicy:
        if trial.policy is not None:
            return MemoryPolicy(**trial.policy.model_dump())
        return self._stored(tenant_id, trial.user_id)

    def _stored(self, tenant_id: str, user_id: str | None) -> MemoryPolicy:
        """The tenant's policy, with what the user asked not to be remembered when a user is named."""
        if user_id is None:
            return MemoryPolicy.of(self._configs.get(tenant_id))
        return self._configs.policy_of_user(tenant_id, user_id)

    def passed_on(self, tenant_id: str, user_id: str | None, text: str) -> str:
        """What the screen lets a text say under the stored policy (with the user's own exclusions when a
        user is named): an attachment's description is screened as an add's messages are."""
        policy = self._stored(tenant_id, user_id)
        if not (policy.exclude or policy.include):
            return text
        stored, verdicts = PolicyScreen(policy, self._meaning).trial(text)
        return text if all(why is None for _, why, _ in verdicts) else stored  # untouched: as written

    def test(self, tenant_id: str, trial: PolicyTrial) -> PolicyTrialAnswer:
        policy = self.policy(tenant_id, trial)
        screen = PolicyScreen(policy, self._meaning)
        stored, verdicts = screen.trial(trial.text)
        entries = list(dict.fromkeys([*policy.exclude, *policy.include]))
        return PolicyTrialAnswer(
            include=policy.include,
            exclude=policy.exclude,
            by_meaning=self._meaning is not None,
            stored=stored,
            clauses=[_verdict(screen, entries, clause, why, scores) for clause, why, scores in verdicts],
        )


def _verdict(
    screen: PolicyScreen, entries: list[str], clause: str, why: str | None, scores: Scores | None
) -> ClauseVerdict:
    decision = "kept" if why is None else "not included" if why == NOT_INCLUDED else "excluded"
    read = [_entry(screen, e, clause, scores) for e in entries]
    if scores is None:
        return ClauseVerdict(text=clause, decision=decision, reason=why, entries=read)
    near: dict[str, float] = {bank.value: score for bank, score in scores.banks.items()}
    near.update({r.entry: r.score for r in read if r.kind == "topic" and r.score is not None})
    nearest = max(near, key=lambda name: near[name])
    return ClauseVerdict(
        text=clause, decision=decision, reason=why, nearest=nearest, nearest_score=round(near[nearest], 4), entries=read
    )


def _entry(screen: PolicyScreen, entry: str, clause: str, scores: Scores | None) -> EntryScore:
    bank = _BANKS.get(entry.lower())
    kind = "bank" if bank is not None else "topic"
    score: float | None = None
    if scores is not None:
        topic = entry.lower()  # a topic: its best reading, by its own examples or the catalogue's
        by_topic = max(scores.topics.get(topic, 0.0), scores.catalogue.get(topic, 0.0))
        score = scores.banks[bank] if bank is not None else by_topic
    margin: float | None = None
    if scores is not None and score is not None:  # on the readings where they decide: a bank's, a catalogue topic's
        if bank is not None:
            margin = round(scores.margin(bank), 4)
        elif (by_catalogue := scores.catalogue_margin(entry)) is not None:
            margin = round(by_catalogue, 4)
        else:
            margin = round(score - scores.nearest, 4)
    return EntryScore(
        entry=bank.value if bank is not None else entry,
        kind=kind,
        score=round(score, 4) if score is not None else None,
        margin=margin,
        matches=screen.matches(entry, clause, scores),
    )
