"""What every rendering of deploy/kubernetes must hold, as checks that raise
`ManifestError` naming the problem (the tests run them on the rendered overlays, and on
broken copies to show that they catch what they claim)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import kubernetes_validate
import yaml

from core.secrets import scrub, secret_key

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
OVERLAYS = ("embedded", "replicated")
VERSIONS = ("1.27.0", "1.37.0")
"""The oldest Kubernetes docs/deploy.md supports (gRPC probes are GA from 1.27) and the
newest kubernetes-validate knows."""
SECRET_SETTINGS = {
    "AGENTD_LLM_API_KEY", "OPENAI_API_KEY", "AGENTD_JWT_HS256_SECRET", "AGENTD_DATABASE_URL",
    "AGENTD_REDIS_URL", "AGENTD_KEYS",
}  # fmt: skip
"""Settings whose values are secrets (passwords ride in the database and Redis URLs;
AGENTD_KEYS opens every secret kept at rest)."""
HEALTH_SERVICE = "agentd.v1.AgentService"

Doc = dict[str, Any]


class ManifestError(AssertionError):
    """A rendered manifest breaks one of the rules above."""


def load(path: Path) -> list[Doc]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def render(overlay: str) -> list[Doc]:
    """`kubectl kustomize` of an overlay; ManifestError when it warns (a deprecated key)."""
    return kustomize(KUBERNETES / "overlays" / overlay)


def render_with(overlay: str, component: str, folder: Path) -> list[Doc]:
    """An overlay with a component of deploy/kubernetes/components taken in, as an operator's
    own kustomization in `folder` would (kustomize wants the paths relative)."""
    here = Path(os.path.relpath(KUBERNETES, folder))
    (folder / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": [str(here / "overlays" / overlay)],
                "components": [str(here / "components" / component)],
            }
        )
    )
    return kustomize(folder)


def kustomize(folder: Path) -> list[Doc]:
    """`kubectl kustomize` of the kustomization in `folder`: what it renders. ManifestError
    when it fails, or when it says anything on stderr: kustomize warns there of deprecated
    keys (`bases`, `patchesStrategicMerge`, ...), which every render would repeat."""
    done = subprocess.run(
        ["kubectl", "kustomize", str(folder)], capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        raise ManifestError(f"kubectl kustomize {folder} failed: {done.stderr}")
    if done.stderr.strip():
        raise ManifestError(f"kubectl kustomize {folder} warns: {done.stderr.strip()}")
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def validate(doc: Doc) -> None:
    """Against the API's schemas (strict: no unknown fields) of every version in VERSIONS."""
    for version in VERSIONS:
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(part) for part in error.path)
            name = f"{doc['kind']}/{doc['metadata']['name']}"
            problem = f"{name} on Kubernetes {version}: {where}: {error.message}"
            raise ManifestError(problem) from None


def one(docs: list[Doc], kind: str, name: str | None = None) -> Doc:
    found = [d for d in docs if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    if len(found) != 1:
        raise ManifestError(f"expected one {kind} {name or ''}, found {len(found)}")
    return found[0]


def kinds(docs: list[Doc]) -> set[str]:
    return {doc["kind"] for doc in docs}


def containers(pod: Mapping[str, Any]) -> Iterator[Doc]:
    yield from pod.get("initContainers", [])
    yield from pod["containers"]


def check_probes(deployment: Doc) -> None:
    """Startup, readiness and liveness probes of the server are gRPC health checks on its
    gRPC port; readiness asks for the AgentService."""
    server = next(c for c in deployment["spec"]["template"]["spec"]["containers"])
    port = next(p["containerPort"] for p in server["ports"] if p["name"] == "grpc")
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = server.get(kind)
        if probe is None:
            raise ManifestError(f"the server has no {kind}")
        handlers = {"grpc", "httpGet", "tcpSocket", "exec"} & set(probe)
        if handlers != {"grpc"}:
            raise ManifestError(f"{kind} is {sorted(handlers)}, not a gRPC health check")
        if probe["grpc"]["port"] != port:
            raise ManifestError(f"{kind} checks port {probe['grpc']['port']}, not {port}")
    if server["readinessProbe"]["grpc"].get("service") != HEALTH_SERVICE:
        raise ManifestError(f"readinessProbe does not ask for {HEALTH_SERVICE}")


def drain_seconds(settings: Mapping[str, str]) -> float:
    """How long agentd takes to drain on SIGTERM, by its settings (0 and 30 by default)."""
    delay = float(settings.get("AGENTD_SHUTDOWN_DELAY_SECONDS", 0))
    return delay + float(settings.get("AGENTD_GRACE_PERIOD_SECONDS", 30))


def check_drain(deployment: Doc, configmap: Doc) -> None:
    """The pod's grace period outlasts the drain, and liveness never fails a draining pod
    (health answers NOT_SERVING for all of it)."""
    pod = deployment["spec"]["template"]["spec"]
    drain = drain_seconds(configmap["data"])
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if grace <= drain:
        raise ManifestError(f"terminationGracePeriodSeconds {grace} <= drain {drain:g} s")
    liveness = pod["containers"][0]["livenessProbe"]
    lasts = liveness.get("periodSeconds", 10) * liveness.get("failureThreshold", 3)
    if lasts <= drain:
        raise ManifestError(f"liveness fails after {lasts} s, during the {drain:g} s drain")


def check_no_secrets_in(configmap: Doc) -> None:
    """No setting that is a secret, and no value shaped like a credential."""
    for name, value in configmap.get("data", {}).items():
        if name in SECRET_SETTINGS or secret_key(name):
            raise ManifestError(f"ConfigMap {configmap['metadata']['name']} holds {name}")
        if scrub(str(value)) != str(value) or re.search(r"://[^/@\s]*@", str(value)):
            raise ManifestError(f"ConfigMap {configmap['metadata']['name']}: {name} is a secret")


def check_secret_settings_from_secrets(pod: Mapping[str, Any]) -> None:
    for container in containers(pod):
        for variable in container.get("env", []):
            if variable["name"] in SECRET_SETTINGS and "secretKeyRef" not in variable.get(
                "valueFrom", {}
            ):
                raise ManifestError(f"{container['name']}: {variable['name']} not from a Secret")


def check_security(pod: Mapping[str, Any]) -> None:
    """Non-root, no privilege escalation, read-only root, no capabilities, the runtime's
    seccomp profile, and requests and limits, for every container."""
    context = pod.get("securityContext", {})
    if context.get("runAsNonRoot") is not True:
        raise ManifestError("the pod may run as root")
    if context.get("seccompProfile", {}).get("type") != "RuntimeDefault":
        raise ManifestError("the pod has no RuntimeDefault seccomp profile")
    for container in containers(pod):
        own = container.get("securityContext", {})
        if own.get("allowPrivilegeEscalation") is not False:
            raise ManifestError(f"{container['name']} may escalate privileges")
        if own.get("readOnlyRootFilesystem") is not True:
            raise ManifestError(f"{container['name']} has a writable root file system")
        if own.get("capabilities", {}).get("drop") != ["ALL"]:
            raise ManifestError(f"{container['name']} keeps capabilities")
        resources = container.get("resources", {})
        for bound in ("requests", "limits"):
            if set(resources.get(bound, {})) != {"cpu", "memory"}:
                raise ManifestError(f"{container['name']} has no cpu and memory {bound}")


def check_all(docs: list[Doc]) -> None:
    """The rules every overlay keeps."""
    for doc in docs:
        validate(doc)
    deployment = one(docs, "Deployment", "agentd")
    configmap = one(docs, "ConfigMap", "agentd-settings")
    pod = deployment["spec"]["template"]["spec"]
    check_probes(deployment)
    check_drain(deployment, configmap)
    for each in (d for d in docs if d["kind"] == "ConfigMap"):
        check_no_secrets_in(each)
    for workload in (d for d in docs if d["kind"] in {"Deployment", "Job"}):
        check_secret_settings_from_secrets(workload["spec"]["template"]["spec"])
        check_security(workload["spec"]["template"]["spec"])
    if [c["args"] for c in pod.get("initContainers", [])] != [["migrate"]]:
        raise ManifestError("migrations do not run before the server (initContainer)")
