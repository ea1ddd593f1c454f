"""Private implementation of tfport; nothing here is public API."""
