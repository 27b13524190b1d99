"""The conformance protocols: one package per protocol, each its projection onto the spec,
its checks (declared once with the requirements they judge) and its live scenarios."""
