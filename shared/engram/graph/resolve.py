"""Entity resolution: a mention becomes the user's existing entity when the normalised names match
or the name embeddings are close enough (threshold in settings) and the types agree, unless the words
tell the names apart (two_names)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engram.domain.errors import NotFoundError
from engram.domain.graph import USER_ENTITY_TYPE, Entity, normalise_name
from engram.domain.index_ports import knn_each
from engram.domain.models import IndexDoc, ScoredId
from engram.domain.ports import Embedder, GraphStore, VectorIndex

GENERIC_TYPE = "thing"
CANDIDATES = 5


def user_entity_id(user_id: str) -> str:
    """The user's own entity ("I / me / my") has a fixed id per user."""
    return f"user-{user_id}"


def entity_doc(entity: Entity, vector: list[float]) -> IndexDoc:
    return IndexDoc(
        id=entity.id,
        tenant_id=entity.tenant_id,
        user_id=entity.user_id,
        text=" ".join([entity.name, *entity.aliases]),
        vector=vector,
        metadata={"type": entity.type},
        created_at=entity.created_at,
    )


def two_names(key: str, names: set[str]) -> bool:
    """Whether a name is told apart from each of an entity's names by its words, however close their embeddings:
    they share a word and each has one the other lacks ("sigurður jónsdóttir" and "sigurður ólafsdóttir",
    "anna berg" and "maria berg"). "maren" and "maren olsen", or "nyc" and "new york city", are not told apart."""
    words = set(key.split())
    return all(words & set(n.split()) and words - set(n.split()) and set(n.split()) - words for n in names)


def types_agree(a: str, b: str) -> bool:
    return a == b or GENERIC_TYPE in (a, b)


@dataclass
class EntityResolver:
    """Resolves the mentions of one run; new entities are collected for one write at the end."""

    store: GraphStore
    index: VectorIndex
    embedder: Embedder
    tenant_id: str
    user_id: str
    threshold: float = 0.9
    created: dict[str, Entity] = field(default_factory=dict)
    _known: dict[str, Entity] = field(default_factory=dict)
    _vectors: dict[str, list[float]] = field(default_factory=dict)
    # The stored entities this run has read (None: looked for, absent). A run's mentions find the
    # same few entities of the user again and again; nothing in a run changes them (new entities
    # are written at the end, and the user's runs follow one another), so each is read once.
    _read: dict[str, Entity | None] = field(default_factory=dict)

    # Each mention's nearest stored entities: the index does not change during a run (as `_read`).
    _hits: dict[str, list[ScoredId]] = field(default_factory=dict)

    def prepare(self, names: Sequence[str]) -> None:
        """Embed the run's mentions in one call, search them in one request and read what they find in one."""
        todo = list(dict.fromkeys(n for n in names if n not in self._vectors))
        if todo:
            self._vectors.update(zip(todo, self.embedder.embed(todo), strict=True))
        unsearched = list(dict.fromkeys(n for n in names if n not in self._hits))
        if unsearched:
            vectors = [self._vectors[n] for n in unsearched]
            found = knn_each(self.index, self.tenant_id, self.user_id, vectors, CANDIDATES)
            self._hits.update(zip(unsearched, found, strict=True))
            self._stored([h.id for hits in found for h in hits])

    def user(self) -> Entity:
        entity_id = user_entity_id(self.user_id)
        if entity_id not in self._known:
            self._known[entity_id] = Entity(
                id=entity_id, tenant_id=self.tenant_id, user_id=self.user_id, name=self.user_id, type=USER_ENTITY_TYPE
            )
        return self._known[entity_id]

    def candidates(self, name: str, kind: str) -> list[Entity]:
        """Existing entities this mention may be, best first (created ones of this run included)."""
        key = normalise_name(name)
        local = [e for e in self.created.values() if key in e.names() and types_agree(e.type, kind)]
        self.prepare([name])
        hits = self._hits[name]
        stored = self._stored([h.id for h in hits])
        score = {h.id: h.score for h in hits}
        close = [
            e
            for e in stored
            if e.user_id == self.user_id
            and types_agree(e.type, kind)
            and (key in e.names() or (score.get(e.id, 0.0) >= self.threshold and not two_names(key, e.names())))
        ]
        close.sort(key=lambda e: (key not in e.names(), -score.get(e.id, 0.0)))
        return local + [e for e in close if e.id not in self.created]

    def _stored(self, ids: list[str]) -> list[Entity]:
        todo = [i for i in dict.fromkeys(ids) if i not in self._read]
        if todo:
            found = {e.id: e for e in self.store.get_entities(self.tenant_id, todo)}
            self._read.update({i: found.get(i) for i in todo})
        return [e for i in dict.fromkeys(ids) if (e := self._read[i]) is not None]

    def new(self, name: str, kind: str) -> Entity:
        entity = Entity(tenant_id=self.tenant_id, user_id=self.user_id, name=name, type=kind)
        self.created[entity.id] = entity
        return entity

    def commit(self) -> None:
        """Store the new entities (and the user's own, once) and index their names."""
        entities = list(self.created.values())
        user = self.user()
        if user.id in self._read:  # read by this run already
            if self._read[user.id] is None:
                entities.append(user)
        else:
            try:
                self.store.get_entity(self.tenant_id, user.id)
            except NotFoundError:
                entities.append(user)
        if entities:
            self.store.put_entities(entities)
            index_entities(self.index, self.embedder, entities)


def index_entities(index: VectorIndex, embedder: Embedder, entities: Sequence[Entity]) -> None:
    if entities:
        vectors = embedder.embed([" ".join([e.name, *e.aliases]) for e in entities])
        index.upsert([entity_doc(e, v) for e, v in zip(entities, vectors, strict=True)])
