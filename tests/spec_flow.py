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
import copy
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
        trees: dict[str, ast.Module] = {}
        for path in sorted((root / "searchain").rglob("*.py")):
            name = module_name(path)
            tree = trees[name] = ast.parse(path.read_text(encoding="utf-8"))
            self.functions[name] = {n.name: n for n in tree.body if isinstance(n, Function)}
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
                own = {item.name: item for item in cls.body if isinstance(item, Function)}
                self.classes[name, cls.name] = own
                for item in own.values():
                    methods.setdefault(item.name, []).append((name, item))
            self.imports[name] = dict(_bindings(tree))
        self.methods = {m: places[0] for m, places in methods.items() if len(places) == 1}
        self.fields: dict[str, list[tuple[str, Function]]] = {}
        """Callable fields by name: every function a declaration gives one (``prepare=...``)."""
        for name, tree in trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    for kw in node.keywords:
                        if kw.arg and isinstance(kw.value, ast.Name):
                            fake = ast.Call(func=kw.value, args=[], keywords=[])
                            for found in self.resolve(name, fake):
                                if found not in self.fields.setdefault(kw.arg, []):
                                    self.fields[kw.arg].append(found)

    def resolve(self, module: str, call: ast.Call) -> list[tuple[str, Function]]:
        """The searchain functions ``call`` (written in ``module``) may run, where they can be
        told: one, or each function a declaration gives the callable field it calls."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.functions.get(module, {}):
                return [(module, self.functions[module][func.id])]
            source, attr = self.imports[module].get(func.id, ("", None))
            if attr is not None and attr in self.functions.get(source, {}):
                return [(source, self.functions[source][attr])]
            return []
        if not isinstance(func, ast.Attribute):
            return []
        if isinstance(func.value, ast.Name):
            owner = func.value.id
            source, attr = self.imports[module].get(owner, (module, owner))
            if attr is not None and f"{source}.{attr}" in self.functions:
                source, attr = f"{source}.{attr}", None  # ``from package import module``
            if attr is None and func.attr in self.functions.get(source, {}):
                return [(source, self.functions[source][func.attr])]  # module.function
            where = self.class_of(source, attr or "")
            if where and func.attr in self.classes[where]:
                return [(where[0], self.classes[where][func.attr])]  # Class.method
        if func.attr in self.methods:
            return [self.methods[func.attr]]
        return self.fields.get(func.attr, [])  # ``method.prepare(...)``: every declared one

    def class_of(self, module: str, name: str) -> tuple[str, str] | None:
        """Where the class ``name`` that ``module`` defines or imports is defined."""
        for _ in range(3):  # a class re-exported by a package's __init__
            if (module, name) in self.classes:
                return module, name
            module, attr = self.imports.get(module, {}).get(name, ("", None))
            if attr is None:
                return None
            name = attr
        return None

    def constructs(self, module: str, call: ast.Call) -> bool:
        """Whether ``call`` makes an object of one of the package's classes (its fields are
        what it is given: the spec's parts stay followed through it)."""
        if isinstance(call.func, ast.Name):
            return self.class_of(module, call.func.id) is not None
        return False


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
    """Whether the expression ``node`` is a followed value: reads a followed name, or a
    followed field of a name (``setup.dataset``), outside any call (what a call returns is
    something new, made from the spec, not the spec)."""
    if isinstance(node, ast.Name):
        return node.id in followed
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and f"{node.value.id}.{node.attr}" in followed
    ):
        return True
    if isinstance(node, ast.Call):
        return False
    return any(_reads(child, followed) for child in ast.iter_child_nodes(node))


def _fields(node: ast.AST, followed: set[str]) -> set[str]:
    """The followed fields of the object ``node`` names (none if it names no such object)."""
    if not isinstance(node, ast.Name):
        return set()
    prefix = f"{node.id}."
    return {path.removeprefix(prefix) for path in followed if path.startswith(prefix)}


def _targets(target: ast.AST):
    yield from (n.id for n in ast.walk(target) if isinstance(n, ast.Name))


def _parameters(function: Function) -> list[str]:
    args = function.args
    return [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]


def spec_flow(
    package: Package | None = None,
    entrance: tuple[str, str, str] = ENTRANCE,
    method: str | None = None,
) -> list[Room]:
    """The rooms the spec enters from ``entrance``, in order (see the module).

    ``method``: the run's method, whose own ``prepare`` is the one a run calls; without it,
    every method's is followed.
    """
    package = package or Package()
    if method is not None:  # a copy: the parsed package serves every method's measure
        from searchain.methods import get_method

        prepare = get_method(method).prepare
        package = copy.copy(package)
        package.fields = package.fields | {
            "prepare": [
                (where, fn)
                for where, fn in package.fields.get("prepare", [])
                if (where, fn.name) == (prepare.__module__, prepare.__name__)
            ]
        }
    module, name, parameter = entrance
    rooms: list[Room] = []
    entered: set[tuple[str, str, frozenset[str]]] = set()

    def visit(module: str, function: Function, followed: set[str]) -> None:
        followed = set(followed)

        def makes(call: ast.Call) -> bool:
            return package.constructs(module, call)

        for node in _in_order(function):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For):
                value = node.iter if isinstance(node, ast.For) else node.value
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {name for target in targets for name in _targets(target)}
                made = _made(value, followed, makes) if value is not None else set()
                if value is not None and _reads(value, followed):
                    followed |= names
                elif made and len(names) == 1:  # an object holding some of the spec's parts
                    (name,) = names
                    followed |= {f"{name}.{field}" for field in made}
                elif node in function.body and not isinstance(node, ast.AugAssign):
                    # on every path, the name now holds something else
                    followed -= names | {p for p in followed if p.split(".")[0] in names}
            if not isinstance(node, ast.Call):
                continue
            for target_module, target in package.resolve(module, node):
                passed = _passed(node, target, followed)
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


def _made(value: ast.AST, followed: set[str], constructs) -> set[str]:
    """The fields given a followed value, where ``value`` constructs an object by keywords."""
    if not (isinstance(value, ast.Call) and constructs(value)):
        return set()
    return {kw.arg for kw in value.keywords if kw.arg and _reads(kw.value, followed)}


def _passed(call: ast.Call, target: Function, followed: set[str]) -> set[str]:
    """What of ``target``'s parameters ``call`` hands a followed value: a parameter whole, or
    the followed fields of an object (``setup.dataset``)."""
    params = _parameters(target)
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        params = params[1:]
    passed = set()
    for i, arg in enumerate(call.args[: len(params)]):
        if _reads(arg, followed):
            passed.add(params[i])
        else:
            passed |= {f"{params[i]}.{field}" for field in _fields(arg, followed)}
    extra = target.args.vararg
    if extra and any(_reads(a, followed) for a in call.args[len(params) :]):
        passed.add(extra.arg)
    for kw in call.keywords:
        if _reads(kw.value, followed):
            if kw.arg in params:
                passed.add(kw.arg)
            elif target.args.kwarg:  # into **kwargs
                passed.add(target.args.kwarg.arg)
        elif kw.arg in params:
            passed |= {f"{kw.arg}.{field}" for field in _fields(kw.value, followed)}
    return passed


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


def measure(method: str | None = None, package: Package | None = None) -> tuple[int, int, int]:
    """(modules, rooms, climbs) of a run of ``method`` (of any method's, without it), in
    ``package`` (parsed here when not given)."""
    rooms = spec_flow(package, method=method)
    return len({room.module for room in rooms}), len(rooms), climbs(rooms)


def main() -> None:
    package = Package()
    rooms = spec_flow(package)
    for room in rooms:
        print(f"{room.layer:2d} {room.module}.{room.function}")
    modules, count, up = measure(package=package)
    print(f"every method's set-up followed: {modules} modules, {count} rooms, {up} climbs back up")
    from searchain.methods import METHODS

    for name in METHODS:
        modules, count, up = measure(name, package)
        print(f"{name:22s} {modules:3d} modules {count:3d} rooms {up:2d} climbs")


if __name__ == "__main__":
    main()
