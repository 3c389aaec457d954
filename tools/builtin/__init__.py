"""The tools agentd ships with, one module each; `builtin_tools` (`toolkit`) makes one
instance of every one of them, configured."""

from tools.builtin.artifacts import ArtifactLimits
from tools.builtin.files import Workspace
from tools.builtin.http import HttpLimits
from tools.builtin.toolkit import builtin_tools

__all__ = ["ArtifactLimits", "HttpLimits", "Workspace", "builtin_tools"]
