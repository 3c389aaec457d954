"""The `agentd` command line (`cli`) and what its commands run apart from serving:
grants administration, memory re-indexing, the demo, the first migration in a child
process, and the generated references of the API and the settings (`make docs`)."""
