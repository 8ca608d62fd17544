"""ir.node.Visitor: dispatch by node class, cached per visitor class, along the class's MRO."""
import pytest

from dataplane.errors import DiagnosticSink, InternalError
from dataplane.ir import expr as E
from dataplane.ir import stmt as S
from dataplane.ir.node import Visitor
from dataplane.lang.check.checker import Checker


class Counter(Visitor):
    def __init__(self):
        self.seen = []

    def visit_Constant(self, node):
        self.seen.append(("const", node.value))

    def visit_Expr(self, node):    # every other expression
        self.seen.append(("expr", type(node).__name__))
        self.generic_visit(node)

    def top_Constant(self, node):
        return node.value * 2


def test_visitor_falls_back_along_the_mro_and_caches_per_class():
    """visit_Expr catches expressions without a rule of their own; the rule is found once per class."""
    v = Counter()
    v.visit(E.Binary("+", E.Constant(1), E.PathExpr("x")))
    assert v.seen == [("expr", "Binary"), ("const", 1), ("expr", "PathExpr")]
    assert Counter._tables["visit_"][E.Binary] is Counter.visit_Expr
    assert Counter._tables["visit_"][E.Constant] is Counter.visit_Constant


def test_a_subclass_rule_overrides_without_touching_the_base_cache():
    """Each visitor class has its own cache, so an override is seen even after the base ran."""
    Counter().visit(E.PathExpr("y"))

    class Paths(Counter):
        def visit_PathExpr(self, node):
            self.seen.append(("path", node.name))

    p = Paths()
    p.visit(E.PathExpr("y"))
    assert p.seen == [("path", "y")]
    assert Counter._tables["visit_"][E.PathExpr] is Counter.visit_Expr


def test_dispatch_names_a_second_family_of_rules():
    """dispatch(prefix, node) finds <prefix><ClassName>; without one it falls back to generic_visit."""
    v = Counter()
    assert v.dispatch("top_", E.Constant(21)) == 42
    assert v.dispatch("top_", S.Empty()) is None


def test_visitor_walks_any_class():
    """Non-IR classes dispatch too (the STF runner visits its commands); generic_visit ignores them."""
    class Strs(Visitor):
        def visit_str(self, s):
            return s.upper()

    assert Strs().visit("ab") == "AB"
    assert Strs().visit(3) is None


def test_the_checker_reports_a_node_without_a_rule_as_a_bug():
    """A node class the checker has no rule for is an internal error, never a silent None."""
    with pytest.raises(InternalError, match="no rule for Mask"):
        Checker(DiagnosticSink()).check_expr(E.Mask(E.Constant(1), E.Constant(2)))
