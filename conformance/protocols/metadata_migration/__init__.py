"""PIP-454 metadata store migration (ZooKeeper to Oxia) on a real Pulsar 5.x standalone."""
