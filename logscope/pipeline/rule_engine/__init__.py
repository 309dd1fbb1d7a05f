"""The YAML rule engine: rules are data, conditions have their own grammar (grammars/rule_expr.lark)."""
