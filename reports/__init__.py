"""Certification and what it leaves, in three layers that import downwards only (tests/harness/test_layers.py):

- ``runner``: what runs a certification, an exploration or a re-judging and talks to the pytest child (the
  commands' edge, the request, the plan, the child's plugins, the bundle's assembly);
- ``bundle``: what a bundle on disk is (its files, manifest and archive, its summary read and checked) and how
  verdicts are computed from rows (requirements, runs, series, comparisons);
- ``view``: what renders a bundle for people (report.html and its pictures, compare's page, the release tables).

``bundle`` imports neither of the others; ``view`` imports ``bundle``, never ``runner``; ``runner`` may import both.
"""
