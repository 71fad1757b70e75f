"""The in-sandbox re-validation: the shipped validator modules served from memory, and
the validator run again on the bytes received, before anything executes (fail closed).

Part of the harness (inside.py): runs INSIDE the sandbox, in the harness's own namespace.
`bundle()` compiles the harness parts and inside.py as one module, this file's body first:
definitions only (tests/sandbox/test_sandbox_startup.py), so the names they use (`REQ`,
`posix`, `_RESULT_FD`, ...) are the harness's globals, resolved when called.
"""

# ruff: noqa: F821, BLE001, S102  (the harness's globals; it must catch everything, exec
# the shipped modules)

# --------------------------------------------------------------------------- validation


def _revalidate():
    """Nothing executes unparsed: run the validator again, here, on the bytes we received."""
    if VALIDATOR_MODULES is None:
        return [{"code": "SS003", "message": "validator not shipped into the sandbox",
                 "line": 1, "column": 0, "end_line": 1, "end_column": 1}]
    try:
        if not _VALIDATOR_READY:
            _install_modules(*VALIDATOR_MODULES)
        # The validator's import path is kept to built-in modules (`_ast` rather than `ast`,
        # no dataclasses/enum/typing/re/functools): tests/sandbox/test_sandbox_startup.py.
        from stepsmith.runner.validator import StepUse, validate

        uses = [StepUse(*u) for u in REQ["uses"]]
        problems = validate(_SOURCE, python=REQ["python"], uses=uses)
        out = []
        for p in problems:
            sev = getattr(getattr(p, "severity", None), "value", "error")
            if sev != "error":
                continue
            sp = p.span
            out.append({"code": p.code, "message": p.message, "line": sp.line,
                        "column": sp.column, "end_line": sp.end_line,
                        "end_column": sp.end_column, "step": p.step})
        return out
    except BaseException as exc:  # fail closed
        return [{"code": "SS003", "line": 1, "column": 0, "end_line": 1, "end_column": 1,
                 "message": "validator failed inside the sandbox: "
                            f"{type(exc).__name__}: {_safe_str(exc)}"[:500]}]


def _install_modules(eager, mods):
    """Serve the shipped validator modules from memory.

    `eager`: (name, is_package, code) for what importing the validator executes, in that
    order (dependencies first, as computed by the parent: `stepsmith.runner.harness.
    exec_order`), their code objects unmarshalled with the harness frame itself; each is
    executed right here into a module object set up as the import system would
    (`__spec__`, `__loader__`, `__package__`, `__path__`; registered in sys.modules and bound
    on its parent package before its code runs), without importlib's per-module bookkeeping
    (~20 µs each). Their own import statements then find them in sys.modules. `mods`: every
    other shipped module (name -> (is_package, marshalled code)), unmarshalled only if
    imported, served by the meta-path finder below.
    """
    ModuleSpec = sys.modules["_frozen_importlib"].ModuleSpec  # loaded at start-up; importlib is not
    CodeType = type(_install_modules.__code__)
    # an eager module imported before its turn (an import cycle) is served like any other
    mods.update((name, (is_pkg, code)) for name, is_pkg, code in eager if name not in mods)

    class Loader:
        @staticmethod
        def create_module(spec):
            return None

        @staticmethod
        def exec_module(module):
            name = module.__spec__.name
            code = mods[name][1]
            exec(code if type(code) is CodeType else marshal.loads(code), module.__dict__)

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name in mods:
                is_pkg = mods[name][0]
                spec = ModuleSpec(name, Loader, is_package=is_pkg)
                if is_pkg:
                    spec.submodule_search_locations = []
                return spec
            if name in ("stepsmith", "stepsmith.runner"):
                spec = ModuleSpec(name, Loader, is_package=True)
                spec.submodule_search_locations = []
                mods.setdefault(name, (True, marshal.dumps(compile("", f"<{name}>", "exec"))))
                return spec
            return None

    sys.meta_path.insert(0, Finder)

    Module = type(sys)
    modules = sys.modules
    ahead = set()  # packages set up before their own code runs (a submodule came first)

    def module(name, is_pkg):
        m = modules.get(name)
        if m is None:
            parent, _, child = name.rpartition(".")
            if parent:
                if parent not in modules:
                    ahead.add(parent)
                module(parent, True)
            m = Module(name)
            spec = ModuleSpec(name, Loader, is_package=is_pkg)
            m.__spec__ = spec
            m.__loader__ = Loader
            if is_pkg:
                spec.submodule_search_locations = m.__path__ = []
                m.__package__ = name
            else:
                m.__package__ = parent
            modules[name] = m
            if parent:
                setattr(modules[parent], child, m)
        return m

    for name, is_pkg, code in eager:
        if name in modules and name not in ahead:
            continue  # already imported
        ahead.discard(name)
        exec(code, module(name, is_pkg).__dict__)
