"""Renderers: each turns the one report dict into a format (text, markdown, json)."""
