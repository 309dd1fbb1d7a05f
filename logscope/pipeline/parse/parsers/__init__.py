"""One module per grammar: each turns a lark tree into plain event data."""
