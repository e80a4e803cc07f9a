"""Suite types. A new type is one Suite subclass added to SUITE_CLASSES in registry.py."""
