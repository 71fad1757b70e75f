"""`runner.manifest` imports its submodules lazily (importing yamlpos or discovery does not
import the pydantic model; bench/lsp.py measures the cold server): every name it exports is
still there, and an unknown one is an AttributeError."""


def test_the_lazy_package_still_exports_every_name():
    import stepsmith.runner.manifest as manifest

    for name in manifest.__all__:
        assert getattr(manifest, name) is not None, name
    assert "Workflow" in dir(manifest)
    try:
        manifest.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
