#!/usr/bin/env python3
"""The layout check's own test: small crates written to a temporary folder, each with one way
two modules can depend on each other that the first check missed (issue 51, item 8), and the
ways that are no circle. Exits 1 naming a case the check got wrong."""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("layout", os.path.join(HERE, "check-layout.py"))
layout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layout)

# name -> (files of the crate, the circle expected, or [] for none)
CASES = {
    "grouped import": (
        {"lib.rs": "mod a; mod b;", "a.rs": "use crate::{b::B, c};\npub struct A;",
         "b.rs": "use crate::{a::{A}};\npub struct B;"},
        ["a", "b"],
    ),
    "root re-export": (
        {"lib.rs": "mod a; mod b;\npub use a::A;\npub use b::{B as Bee};",
         "a.rs": "pub struct A(crate::Bee);", "b.rs": "use crate::A;\npub struct B(A);"},
        ["a", "b"],
    ),
    "impl in another module": (
        {"lib.rs": "mod service; mod checkpoints;\npub use service::Service;",
         "service.rs": "pub struct Service;\nimpl Service { fn go(&self) { self.rewind() } }",
         "checkpoints.rs": "use crate::Service;\nimpl Service {\n    pub fn rewind(&self) {}\n}"},
        ["checkpoints", "service"],
    ),
    "impl in the type's child module": (
        {"lib.rs": "mod service;", "service/mod.rs": "mod more;\npub struct Service;",
         "service/more.rs": "use super::Service;\nimpl Service { pub fn more(&self) {} }"},
        [],
    ),
    "trait impl": (
        {"lib.rs": "mod a; mod b;", "a.rs": "pub struct A;",
         "b.rs": "pub struct B;\nimpl std::fmt::Display for crate::a::A {\n fn fmt(&self, _: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }\n}"},
        [],
    ),
    "names in comments and strings": (
        {"lib.rs": "mod a; mod b;", "a.rs": "use crate::b::B;\npub struct A;",
         "b.rs": "/// Not [`crate::a::A`].\npub struct B;\nconst S: &str = \"crate::a::A\";"},
        [],
    ),
}


def main():
    wrong = []
    for name, (files, expected) in CASES.items():
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text + "\n")
            found = layout.circles(layout.Crate(root).graph())
            want = [expected] if expected else []
            if found != want:
                wrong.append(f"{name}: found {found}, expected {want}")
    for w in wrong:
        print(w, file=sys.stderr)
    if wrong:
        sys.exit(1)
    print(f"layout check: {len(CASES)} cases right")


if __name__ == "__main__":
    main()
