"""Ingest: read inputs into sources (decoding, bounded reading, wrapper removal, byte ranges, the literal scan)
and unwrap lines that hold other lines."""
