"""An attachment's description is screened by the memory policy as an add's messages are (issue 44): the
tenant's, and with a user named (an attachment sent inline with an add) what that user asked not to be
remembered too; a description the policy does not touch is stored as written."""

from __future__ import annotations

from engram.domain.policy import TenantConfig
from engram.services.attachments import AttachmentService
from engram.services.policy_trials import PolicyTrials
from engram.services.tenant_config import TenantConfigs
from tests.fakes import MemoryAttachmentStore, MemoryBlobs, MemoryConfigStore

SAID = "backup of my crypto wallet, and the floor plan of the new flat"


def service(configs: TenantConfigs) -> AttachmentService:
    trials = PolicyTrials(configs, None)  # no embedder: the topic's words decide
    return AttachmentService(MemoryAttachmentStore(), MemoryBlobs(), screen=trials.passed_on)


def test_a_users_own_exclusion_cuts_the_clause_of_a_description_sent_with_their_add() -> None:
    configs = TenantConfigs(MemoryConfigStore())
    configs.put_user("acme", "alice", TenantConfig(exclude=["crypto"]))
    attachments = service(configs)
    mine, _ = attachments.create("acme", "files.zip", "application/zip", SAID, "", user_id="alice")
    assert mine.description == "the floor plan of the new flat"
    theirs, _ = attachments.create("acme", "files.zip", "application/zip", SAID, "", user_id="bob")
    assert theirs.description == SAID


def test_a_tenant_exclusion_cuts_an_uploaded_description_and_an_untouched_one_is_kept_as_written() -> None:
    configs = TenantConfigs(MemoryConfigStore())
    configs.put("acme", TenantConfig(exclude=["crypto"]))
    attachments = service(configs)
    cut, _ = attachments.create("acme", "files.zip", "application/zip", SAID, "")
    assert cut.description == "the floor plan of the new flat"
    whole, _ = attachments.create("acme", "only.zip", "application/zip", "crypto", "")
    assert whole.description is None  # nothing left: no description
    written = "the floor plan\\nof the new flat"
    kept, _ = attachments.create("acme", "plan.pdf", "application/pdf", written, "")
    assert kept.description == written
