"""The bundle layer: a bundle's files, its summary read and checked, and the verdicts computed from its rows
(reports/__init__.py). It imports neither the runner nor the view layer."""
