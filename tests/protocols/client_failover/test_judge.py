"""PIP121-R11's judge (conformance/protocols/client_failover/judge.py): an acknowledged send that was
never read is lost only when no cluster still holds it (issue 28: 174 "lost" on 3.3.2 could have
been "never read")."""
from pulsar_conformance.conformance.protocols.client_failover.judge import acknowledged_lost


def capture(sent, received):
    kinds = ["send_ok"] * len(sent) + ["receive"] * len(received)
    return {"kind": kinds, "uid": list(sent) + list(received)}


SENT = [f"p/{i}" for i in range(1, 11)]


def backlog(*uids, error=None):
    if error:
        return {"msg_backlog": len(uids), "error": error}
    return {"msg_backlog": len(uids), "uids": list(uids), "complete": True}


def test_everything_delivered_passes():
    ok, said, figures = acknowledged_lost(capture(SENT, SENT), {}, "s1", drain_complete=True)
    assert ok is True and figures["not_delivered"] == 0


def test_stranded_on_a_cluster_the_client_left_is_not_lost():
    # the old judge (Spark's lost == 0) failed this run: p/9 and p/10 sit in the primary's backlog
    ok, said, figures = acknowledged_lost(capture(SENT, SENT[:8]),
                                          {"primary": backlog("p/9", "p/10"), "s1": backlog()}, "s1",
                                          drain_complete=True)
    assert ok is True, said
    assert figures["stranded"] == {"primary": 2} and figures["gone"] == 0
    assert "2 in primary's backlog" in said


def test_in_no_backlog_is_lost():
    ok, said, figures = acknowledged_lost(capture(SENT, SENT[:8]), {"primary": backlog("p/9"), "s1": backlog()},
                                          "s1", drain_complete=True)
    assert ok is False and figures["gone"] == 1 and "p/10" in said


def test_stranded_where_the_client_is_attached_fails_only_after_a_complete_drain():
    outcome = (capture(SENT, SENT[:9]), {"primary": backlog(), "s1": backlog("p/10")}, "s1")
    assert acknowledged_lost(*outcome, drain_complete=True)[0] is False
    ok, said, _ = acknowledged_lost(*outcome, drain_complete=False)
    assert ok is None and "quiet spell" in said


def test_a_backlog_that_could_not_be_read_leaves_missing_sends_unknown():
    ok, said, _ = acknowledged_lost(capture(SENT, SENT[:8]),
                                    {"primary": backlog(error="topic stats: ConnectionRefused"), "s1": backlog()},
                                    "s1", drain_complete=True)
    assert ok is None and "could not read every backlog" in said


def test_backlogs_not_read_judges_as_before():
    ok, said, _ = acknowledged_lost(capture(SENT, SENT[:8]), None, "s1", drain_complete=True)
    assert ok is False and "not read" in said


def test_a_consumer_that_never_subscribed_anywhere_leaves_the_sends_unknown():
    """3.1.0's sweep cell: the consumer's attach timed out during the kills, no cluster had its subscription,
    and 2066 acknowledged sends were read by nobody: not "lost" (no subscription kept them), not judged."""
    never = {"msg_backlog": 0, "uids": [], "complete": True, "subscribed": False}
    ok, said, _ = acknowledged_lost(capture(SENT, []), {"primary": never, "s1": never, "s2": never}, "primary",
                                    drain_complete=False)
    assert ok is None and "never subscribed" in said
    # control: subscribed on one cluster, the same sends in no backlog are lost
    subscribed = dict(never, subscribed=True)
    assert acknowledged_lost(capture(SENT, []), {"primary": subscribed, "s1": never}, "primary",
                             drain_complete=False)[0] is False
