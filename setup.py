"""Maps the checkout's top-level folders under one distribution namespace.

The layout a newcomer sees (spec/, fixtures/, conformance/, spark_checks/, reports/)
is kept, but nothing installs generic top-level names such as ``spec`` or ``fixtures``
into site-packages: they import as ``pulsar_conformance.spec`` and so on. setup.py is
needed only because pyproject.toml cannot remap a folder's subpackages dynamically.
"""
from setuptools import find_packages, setup

# docs/ too: the report links failures to docs/findings.md, which conformance/harness/findings.py reads
# at run time (from a wheel: pulsar_conformance/docs/, the same place relative to the harness)
AREAS = ("spec", "fixtures", "conformance", "spark_checks", "reports", "docs")

packages = ["pulsar_conformance", *(f"pulsar_conformance.{sub}" for sub in find_packages("pulsar_conformance"))]
package_dir = {"pulsar_conformance": "pulsar_conformance"}
for area in AREAS:
    packages.append(f"pulsar_conformance.{area}")
    package_dir[f"pulsar_conformance.{area}"] = area
    packages += [f"pulsar_conformance.{area}.{sub}" for sub in find_packages(area)]

setup(packages=packages, package_dir=package_dir)
