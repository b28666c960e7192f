"""Retry a flaky call with exponential backoff."""
import time


def retry(call, attempts=5, delay=0.5):
    """Call ``call()`` until it succeeds, doubling the wait after each failure."""
    for attempt in range(attempts):
        try:
            return call()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay * 2 ** attempt)
