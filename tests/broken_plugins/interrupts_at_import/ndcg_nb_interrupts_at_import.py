"""A plugin whose import raises KeyboardInterrupt."""
raise KeyboardInterrupt
