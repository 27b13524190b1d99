"""The view layer: a bundle rendered for people (report.html, compare's page, the release tables, the pictures;
the pages' templates in templates/). It may import the bundle layer, never the runner (reports/__init__.py)."""
