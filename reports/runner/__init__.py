"""The runner layer: certify, explore and judge from the command line to a bundle (reports/__init__.py). It may
import the bundle and view layers; neither imports it."""
