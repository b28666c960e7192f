"""Sift's MCP server: search, read and watch the local index over stdio.

``sift-mcp`` (or ``python -m mcp_server``) starts it; see ``server.main``.
The server reads only the last published generation of the index and never
writes to it; its one tool with an effect, ``refresh``, only queues a job.
"""
