"""A plugin whose import calls sys.exit(3)."""
import sys

sys.exit(3)
