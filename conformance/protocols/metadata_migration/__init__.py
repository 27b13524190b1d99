"""PIP-454 metadata store migration (ZooKeeper to Oxia) on a real Pulsar 4.2+ standalone."""
