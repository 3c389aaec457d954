"""deploy/kubernetes: every manifest is valid for Kubernetes 1.27 and 1.37 (offline, with
kubernetes-validate's schemas), each overlay renders with `kubectl kustomize` and keeps
the rules of tests/deploy/manifests.py, and those rules catch what they claim to."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from server.settings import Settings
from tests.deploy.manifests import (
    KUBERNETES,
    OVERLAYS,
    ROOT,
    Doc,
    ManifestError,
    check_all,
    check_drain,
    check_no_secrets_in,
    check_probes,
    check_secret_settings_from_secrets,
    check_security,
    kinds,
    kustomize,
    load,
    one,
    render,
    render_with,
    validate,
)
from tests.docs import examples
from tests.docs.examples import Block


def _resource_files() -> list[Path]:
    """Every manifest file that is a whole resource (not a kustomization or a patch)."""
    patches: set[Path] = set()
    for kustomization in KUBERNETES.rglob("kustomization.yaml"):
        listed = yaml.safe_load(kustomization.read_text()).get("patches", [])
        files = [patch["path"] for patch in listed if "path" in patch]
        patches |= {(kustomization.parent / patch).resolve() for patch in files}
    return sorted(
        path
        for path in KUBERNETES.rglob("*.yaml")
        if path.name != "kustomization.yaml" and path.resolve() not in patches
    )


@pytest.mark.parametrize("path", _resource_files(), ids=lambda p: str(p.relative_to(KUBERNETES)))
def test_every_manifest_is_valid_for_the_supported_versions(path: Path) -> None:
    docs = load(path)
    assert docs
    for doc in docs:
        validate(doc)


def _base() -> list[Doc]:
    return [doc for path in sorted((KUBERNETES / "base").glob("*.yaml")) for doc in load(path)]


def test_the_base_keeps_the_rules_without_kubectl() -> None:
    docs = [doc for doc in _base() if doc.get("kind") != "Kustomization"]
    check_all(docs)


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(request: pytest.FixtureRequest) -> tuple[str, list[Doc]]:
    return request.param, render(request.param)


@pytest.mark.kubectl
def test_each_overlay_renders_and_keeps_the_rules(rendered: tuple[str, list[Doc]]) -> None:
    overlay, docs = rendered
    check_all(docs)
    deployment = one(docs, "Deployment", "agentd")
    pod = deployment["spec"]["template"]["spec"]
    server = pod["containers"][0]
    if overlay == "embedded":
        assert deployment["spec"]["replicas"] == 1
        assert deployment["spec"]["strategy"] == {"type": "Recreate"}
        assert kinds(docs) & {"HorizontalPodAutoscaler", "PodDisruptionBudget"} == set()
        claim = one(docs, "PersistentVolumeClaim")["metadata"]["name"]
        state = next(v for v in pod["volumes"] if v["name"] == "state")
        assert state == {"name": "state", "persistentVolumeClaim": {"claimName": claim}}
    else:
        assert "replicas" not in deployment["spec"]  # the autoscaler owns the count
        hpa = one(docs, "HorizontalPodAutoscaler")
        assert hpa["spec"]["minReplicas"] >= 2
        assert hpa["spec"]["scaleTargetRef"]["name"] == "agentd"
        assert one(docs, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1
        assert one(docs, "Job", "agentd-migrate")["spec"]["template"]["spec"]["containers"][0][
            "args"
        ] == ["migrate"]
        from_secrets = {
            e["name"] for e in server["env"] if "secretKeyRef" in e.get("valueFrom", {})
        }
        assert {"AGENTD_DATABASE_URL", "AGENTD_REDIS_URL"} <= from_secrets
        assert all(v.get("emptyDir") is not None for v in pod["volumes"])
    keys = next(e for e in server["env"] if e["name"] == "AGENTD_KEYS")  # every replica alike
    assert keys["valueFrom"]["secretKeyRef"] == {
        "name": "agentd-secrets",
        "key": "keys",
        "optional": True,
    }
    ports = {
        p["name"]: p["port"] for s in docs if s["kind"] == "Service" for p in s["spec"]["ports"]
    }
    assert ports == {"grpc": 50051, "metrics": 9464}
    assert one(docs, "Service", "agentd-headless")["spec"]["clusterIP"] == "None"


@pytest.mark.kubectl
@pytest.mark.parametrize("component", ["http", "a2a"])
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_http_component_serves_the_http_address_on_either_overlay(
    overlay: str, component: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """components/http, or components/a2a: its former name, kept for kustomizations that
    name it, which renders the same."""
    docs = render_with(overlay, component, tmp_path)
    check_all(docs)
    settings = one(docs, "ConfigMap", "agentd-settings")["data"]
    for name, value in settings.items():  # what agentd reads from them
        monkeypatch.setenv(name, value)
    parsed = Settings()
    assert parsed.a2a is True
    host, _, port = parsed.http_address.rpartition(":")
    assert (host, port) == ("0.0.0.0", "8080")
    assert parsed.http_doors == ["a2a"]
    assert parsed.a2a_public_http_url == "http://agentd:8080"
    assert parsed.a2a_public_grpc_url == "agentd:50051"
    server = one(docs, "Deployment", "agentd")["spec"]["template"]["spec"]["containers"][0]
    assert {p["name"]: p["containerPort"] for p in server["ports"]} == {
        "grpc": 50051,
        "metrics": 9464,
        "http": 8080,
    }
    for name in ("agentd", "agentd-headless"):
        ports = {p["name"]: p for p in one(docs, "Service", name)["spec"]["ports"]}
        assert ports["http"]["port"] == 8080
        assert ports["http"]["targetPort"] == "http"
        assert ports["grpc"]["port"] == 50051  # what was there is kept


SETTINGS_PATCH = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "agentd-settings"},
    "data": {"AGENTD_LOG_LEVEL": "debug"},
}
"""An operator's settings, patched over the base's ConfigMap."""


@pytest.mark.kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_overlay_renders_without_a_deprecation_warning(overlay: str, tmp_path: Path) -> None:
    render(overlay)  # ManifestError with kustomize's warning, if it gives one
    render_with(overlay, "http", tmp_path)
    render_with(overlay, "a2a", tmp_path)


@pytest.mark.kubectl
@pytest.mark.parametrize("key", ["bases", "patchesStrategicMerge"])
def test_a_kustomization_with_a_deprecated_key_is_refused(key: str, tmp_path: Path) -> None:
    base = os.path.relpath(KUBERNETES / "base", tmp_path)
    (tmp_path / "settings.yaml").write_text(yaml.safe_dump(SETTINGS_PATCH))
    old = {"bases": {"bases": [base]}, "patchesStrategicMerge": {
        "resources": [base], "patchesStrategicMerge": ["settings.yaml"]}}[key]  # fmt: skip
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({**kustomization, **old}))
    with pytest.raises(ManifestError, match=f"'{key}' is deprecated"):
        kustomize(tmp_path)


SHOWN = [b for b in examples.all_blocks() if b.code.startswith("# kustomization.yaml")]
"""The kustomizations the pages show an operator to write (docs/deploy.md)."""


def test_the_pages_show_kustomizations() -> None:
    assert len(SHOWN) >= 2


@pytest.mark.kubectl
@pytest.mark.parametrize("block", SHOWN, ids=[b.name for b in SHOWN])
def test_a_kustomization_the_pages_show_renders_without_a_warning(
    block: Block, tmp_path: Path
) -> None:
    """As the page lays it out: the operator's folder beside a checkout named agentd."""
    (tmp_path / "agentd").symlink_to(ROOT)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "kustomization.yaml").write_text(block.code)
    (mine / "settings.yaml").write_text(yaml.safe_dump(SETTINGS_PATCH))  # the patch one names
    docs = kustomize(mine)
    check_all(docs)


def _deployment_and_settings() -> tuple[Doc, Doc]:
    docs = _base()
    return copy.deepcopy(one(docs, "Deployment")), copy.deepcopy(one(docs, "ConfigMap"))


def test_a_probe_that_is_not_grpc_is_refused() -> None:
    deployment, _ = _deployment_and_settings()
    check_probes(deployment)
    server = deployment["spec"]["template"]["spec"]["containers"][0]
    server["readinessProbe"] = {"httpGet": {"path": "/", "port": 9464}}
    with pytest.raises(ManifestError, match=r"readinessProbe .* not a gRPC health check"):
        check_probes(deployment)
    server["readinessProbe"] = {"grpc": {"port": 50051, "service": "agentd.v1.AgentService"}}
    check_probes(deployment)
    del server["livenessProbe"]
    with pytest.raises(ManifestError, match="no livenessProbe"):
        check_probes(deployment)


def test_a_grace_period_shorter_than_the_drain_is_refused() -> None:
    deployment, settings = _deployment_and_settings()
    check_drain(deployment, settings)
    settings["data"]["AGENTD_GRACE_PERIOD_SECONDS"] = "40"  # 5 + 40 > 45
    with pytest.raises(ManifestError, match="terminationGracePeriodSeconds 45 <= drain 45"):
        check_drain(deployment, settings)
    settings["data"]["AGENTD_GRACE_PERIOD_SECONDS"] = "30"
    deployment["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["failureThreshold"] = 3
    with pytest.raises(ManifestError, match="liveness fails after 30 s"):
        check_drain(deployment, settings)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AGENTD_LLM_API_KEY", "anything"),
        ("AGENTD_DATABASE_URL", "postgresql+asyncpg://agentd@db/agentd"),
        ("AGENTD_REDIS_URL", "redis://redis:6379/0"),
        ("AGENTD_JWT_HS256_SECRET", "x" * 32),
        ("AGENTD_KEYS", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="),
        ("SOME_TOKEN", "abc"),
        ("AGENTD_LLM_BASE_URL", "https://user:hunter22@llm.internal/v1"),
        ("AGENTD_LLM_BASE_URL", "redis://:pw1234@cache:6379/0"),
        ("AGENTD_SECRET_PATTERNS", '["sk-abcdefghijklmnopqrstuvwxyz123456"]'),
    ],
)
def test_a_secret_in_the_configmap_is_refused(name: str, value: str) -> None:
    _, settings = _deployment_and_settings()
    check_no_secrets_in(settings)
    settings["data"][name] = value
    with pytest.raises(ManifestError, match=f"holds {name}|{name} is a secret"):
        check_no_secrets_in(settings)


def test_a_secret_setting_given_as_a_plain_value_is_refused() -> None:
    deployment, _ = _deployment_and_settings()
    pod = deployment["spec"]["template"]["spec"]
    check_secret_settings_from_secrets(pod)
    pod["containers"][0]["env"].append({"name": "AGENTD_REDIS_URL", "value": "redis://r:6379"})
    with pytest.raises(ManifestError, match="AGENTD_REDIS_URL not from a Secret"):
        check_secret_settings_from_secrets(pod)


def test_a_writable_root_or_a_root_user_is_refused() -> None:
    deployment, _ = _deployment_and_settings()
    pod = deployment["spec"]["template"]["spec"]
    check_security(pod)
    pod["initContainers"][0]["securityContext"]["readOnlyRootFilesystem"] = False
    with pytest.raises(ManifestError, match="migrate has a writable root"):
        check_security(pod)
    pod["securityContext"]["runAsNonRoot"] = False
    with pytest.raises(ManifestError, match="may run as root"):
        check_security(pod)


def test_the_schemas_refuse_unknown_fields_and_named_grpc_ports() -> None:
    deployment, _ = _deployment_and_settings()
    validate(deployment)
    server = deployment["spec"]["template"]["spec"]["containers"][0]
    broken = copy.deepcopy(deployment)
    broken["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["grpc"]["port"] = "grpc"
    with pytest.raises(ManifestError, match=r"livenessProbe\.grpc\.port"):
        validate(broken)
    server["terminationGracePeriod"] = 60  # a typo: strict schemas know every field
    with pytest.raises(ManifestError, match="terminationGracePeriod"):
        validate(deployment)
