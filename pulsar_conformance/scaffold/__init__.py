"""``pulsar-conformance new-protocol NAME``: a sixth protocol from a template (docs/adding-a-protocol.md).

``names`` checks NAME and derives every name from it, ``tree`` reads the checkout the files go
into and writes them all or none, ``render`` fills the templates (``templates/``, package data),
``cli`` is the command."""
