"""A task's input parts (files and images given with its input): their checks
(`checks`), fetching URL parts under `http_request`'s destination rules (`fetching`), and
keeping each as an artifact of the task before it is queued (`keeping`)."""
