"""Where an evaluation run's spec goes: the modules it passes through, and how often it climbs.

Run: ``python tests/spec_flow.py`` (prints the path and the counts).

Followed as data, statically: from the entrance's ``spec`` parameter, every call in searchain's
code that is handed the spec or a part of it is entered, and its matching parameters followed in
turn, depth first in the order the calls run. A part of it is a name assigned from an expression
that reads a followed name outside any call (``spec.llm``, ``spec.k or 4``); what a call returns
is something new, made from the spec, and a name the function's own body (not a branch of it)
assigns anew is no longer followed. Each call entered is a *room*, in its callee's module; a
*climb* is a room in a higher layer (``test_architecture.LAYERS``) than the room before it: the
spec going back up a floor after it went down. A call is resolved when it names a function of
its module or one it imports, a function of a module it imports, a method of a class it imports,
or a method name that one class of the package alone defines; other calls (a library's, a
callable held in a variable) are not followed, so the counts are a floor.
"""

from __future__ import annotations

import ast
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from tests.unit.test_architecture import layer, module_name  # noqa: E402

ENTRANCE = ("searchain.eval.setup", "eval_context", "spec")
"""The evaluation's entrance: module, function, the spec's parameter."""

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Room:
    """A call the spec entered."""

    module: str
    function: str
    layer: int


class Package:
    """searchain's modules parsed: their functions, and where their imported names come from."""

    def __init__(self, root: Path = ROOT) -> None:
        self.functions: dict[str, dict[str, Function]] = {}
        self.imports: dict[str, dict[str, tuple[str, str | None]]] = {}
        self.classes: dict[tuple[str, str], dict[str, Function]] = {}
        methods: dict[str, list[tuple[str, Function]]] = {}
        for path in sorted((root / "searchain").rglob("*.py")):
            name = module_name(path)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            self.functions[name] = {n.name: n for n in tree.body if isinstance(n, Function)}
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
                own = {item.name: item for item in cls.body if isinstance(item, Function)}
                self.classes[name, cls.name] = own
                for item in own.values():
                    methods.setdefault(item.name, []).append((name, item))
            self.imports[name] = dict(_bindings(tree))
        self.methods = {m: places[0] for m, places in methods.items() if len(places) == 1}

    def resolve(self, module: str, call: ast.Call) -> tuple[str, Function] | None:
        """The searchain function ``call`` (written in ``module``) runs, if it can be told."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.functions.get(module, {}):
                return module, self.functions[module][func.id]
            source, attr = self.imports[module].get(func.id, ("", None))
            if attr is not None and attr in self.functions.get(source, {}):
                return source, self.functions[source][attr]
            return None
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name):
                owner = func.value.id
                source, attr = self.imports[module].get(owner, (module, owner))
                if attr is not None and f"{source}.{attr}" in self.functions:
                    source, attr = f"{source}.{attr}", None  # ``from package import module``
                if attr is None and func.attr in self.functions.get(source, {}):
                    return source, self.functions[source][func.attr]  # module.function
                if func.attr in self.classes.get((source, attr or ""), {}):
                    return source, self.classes[source, attr or ""][func.attr]  # Class.method
            return self.methods.get(func.attr)
        return None


def _bindings(tree: ast.Module):
    """Each name a module's imports bind (at any depth): (module, attribute or None)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("searchain"):
            for alias in node.names:
                yield alias.asname or alias.name, (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("searchain") and alias.asname:
                    yield alias.asname, (alias.name, None)


def _reads(node: ast.AST, followed: set[str]) -> bool:
    """Whether the expression ``node`` is a followed value: reads a followed name outside any
    call (what a call returns is something new, made from the spec, not the spec)."""
    if isinstance(node, ast.Name):
        return node.id in followed
    if isinstance(node, ast.Call):
        return False
    return any(_reads(child, followed) for child in ast.iter_child_nodes(node))


def _targets(target: ast.AST):
    yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _parameters(function: Function) -> list[str]:
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def spec_flow(
    package: Package | None = None, entrance: tuple[str, str, str] = ENTRANCE
) -> list[Room]:
    """The rooms the spec enters from ``entrance``, in order (see the module)."""
    package = package or Package()
    module, name, parameter = entrance
    rooms: list[Room] = []
    entered: set[tuple[str, str, frozenset[str]]] = set()

    def visit(module: str, function: Function, followed: set[str]) -> None:
        followed = set(followed)
        for node in _in_order(function):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For):
                value = node.iter if isinstance(node, ast.For) else node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {name for target in targets for name in _targets(target)}
                if value is not None and _reads(value, followed):
                    followed |= names
                elif node in function.body and not isinstance(node, ast.AugAssign):
                    followed -= names  # on every path, the name now holds something else
            if not isinstance(node, ast.Call):
                continue
            callee = package.resolve(module, node)
            if callee is None:
                continue
            target_module, target = callee
            params = _parameters(target)
            if params and params[0] in ("self", "cls") and isinstance(node.func, ast.Attribute):
                params = params[1:]
            passed = {
                params[i]
                for i, arg in enumerate(node.args)
                if i < len(params) and _reads(arg, followed)
            }
            extra = target.args.vararg
            if extra and any(_reads(a, followed) for a in node.args[len(params) :]):
                passed.add(extra.arg)
            for kw in node.keywords:
                if _reads(kw.value, followed):
                    if kw.arg in params:
                        passed.add(kw.arg)
                    elif target.args.kwarg:  # into **kwargs
                        passed.add(target.args.kwarg.arg)
            if not passed:
                continue
            rooms.append(Room(target_module, target.name, layer(target_module)))
            key = (target_module, target.name, frozenset(passed))
            if key not in entered:
                entered.add(key)
                visit(target_module, target, passed)

    start = package.functions[module][name]
    rooms.append(Room(module, name, layer(module)))
    visit(module, start, {parameter})
    return rooms


def _in_order(function: Function):
    """The function's nodes in the order they run (nested functions left out): an assignment
    after the expression it assigns, so a call reads its arguments before the name changes."""

    def walk(node: ast.AST):
        children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, Function)]
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            for child in children:
                yield from walk(child)
            yield node
        else:
            yield node
            for child in children:
                yield from walk(child)

    for statement in function.body:
        yield from walk(statement)


def climbs(rooms: list[Room]) -> int:
    """How many rooms sit in a higher layer than the room before them."""
    return sum(b.layer > a.layer for a, b in itertools.pairwise(rooms))


def main() -> None:
    rooms = spec_flow()
    for room in rooms:
        print(f"{room.layer:2d} {room.module}.{room.function}")
    modules = {room.module for room in rooms}
    print(f"{len(modules)} modules, {len(rooms)} rooms, {climbs(rooms)} climbs back up")


if __name__ == "__main__":
    main()
