"""The type stubs (__init__.pyi) name exactly what the module has: nothing missing, nothing stale."""
import ast
import pathlib

import graspsim

STUB = pathlib.Path(graspsim.__file__).with_name("__init__.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            classes[node.name] = members
            top.add(node.name)
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
    return top, classes


def public(names):
    return {n for n in names if not n.startswith("_") or n in ("__len__", "__version__")}


def test_stubs_match_the_module():
    top, classes = stub_names()
    assert public(top) == public(set(graspsim.__all__) | {"__version__"})
    for name, members in classes.items():
        actual = public(dir(getattr(graspsim, name))) - {"__version__"}
        if issubclass(getattr(graspsim, name), BaseException):
            continue  # the exceptions' members are Python's own
        assert public(members) == actual, name
