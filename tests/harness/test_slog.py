"""Pulsar 5's slog attributes read back from a log line (conformance/harness/slog.py), in the shapes 5.0.0-M1's
broker and client log them through the suite's patterns."""
from __future__ import annotations

from pulsar_conformance.conformance.harness.slog import attributes


def test_a_5x_line_gives_its_attributes_by_key():
    line = ("2026-11-29T06:16:13,943 [pulsar-io-19-2] INFO  org.apache.pulsar.broker.service.ServerCnx - redirect migrated "
            "producer to topic: producerId=, producerName {producerId=0, producerName=p-1, topic=persistent://t/n/x}")
    assert attributes(line) == {"producerId": "0", "producerName": "p-1", "topic": "persistent://t/n/x"}


def test_values_keep_their_brackets_commas_and_host_lists():
    topic = "... handling {producerId=0, topic=PersistentTopic{topic=persistent://t/n/x}}"
    assert attributes(topic)["topic"] == "PersistentTopic{topic=persistent://t/n/x}"
    conf = ("1795632724640 INFO ControlledClusterFailover [p-1] Switching Pulsar service url {currentConfig=null, "
            "newConfig=ControlledConfiguration(serviceUrl=pulsar://h:1,h:2, authParamsString=null)} ")
    assert attributes(conf) == {"currentConfig": "null",
                                "newConfig": "ControlledConfiguration(serviceUrl=pulsar://h:1,h:2, authParamsString=null)"}
    # a throwable's message after the block, and a dotted key
    probe = "1795932379109 WARN AutoClusterFailover [t] Failed to probe available, url {url=pulsar://h:1,h:2} Connection refused"
    assert attributes(probe) == {"url": "pulsar://h:1,h:2"}
    assert attributes("x - Failed {exception.message=Durable subscription exists., topic=t}") == {
        "exception.message": "Durable subscription exists.", "topic": "t"}


def test_a_line_without_a_block_has_none():
    assert attributes("INFO - [/127.0.0.1:1] redirect migrated producer: producerId=0, producerName = p1, x") == {}
    assert attributes('INFO - a JSON body {"reason": "x"}') == {}
    assert attributes("INFO - never closed {key=value, other=") == {}
    assert attributes("INFO - PersistentTopic{topic=persistent://t/n/x} without a space") == {}
