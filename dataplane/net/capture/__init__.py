"""What a run leaves behind: pcaps with nanosecond timestamps, metrics (JSON, CSV, the text
table) and PNG plots. Reads nodes and links by their attributes and imports nothing else of
``dataplane.net``, so any layer may write captures."""
