# pytest_plugins may only be set in the rootdir's conftest, so the plugin's fixtures and
# hooks are imported here instead.
from pulsar_conformance.fixtures.pytest_plugin import (  # noqa: F401
    pulsar_deployment_factory,
    pytest_configure,
)
