"""``python -m mcp_server``: the same as ``sift-mcp``."""
import sys

from mcp_server.server import main

sys.exit(main())
