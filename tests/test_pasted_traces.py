"""Two stack traces' frames pasted alone, a blank line between them and no header (no 'Traceback …' line, no error
line): search.query.pasted_traces reads them as two traces, each its most recent call first, as it reads two with
their headers; a pytest report's frames, one a block, stay one trace."""
from __future__ import annotations

from search.query.symbols import frames

PYTHON = '''  File "/app/shop/cli.py", line 17, in <module>
    run(value)
  File "/app/shop/cli.py", line 8, in place_command
    return orders.place(items)
  File "/app/shop/orders.py", line 2, in place
    share = 100 / len(items)

  File "/app/shop/cli.py", line 17, in <module>
    run(value)
  File "/app/shop/cli.py", line 12, in refund_command
    return payments.refund(order)
  File "/app/shop/payments.py", line 5, in refund
    return REFUNDS[order]
'''

NODE = '''    at total (/app/web/cart.js:2:16)
    at run (/app/web/main.js:6:5)
    at Object.<anonymous> (/app/web/main.js:12:1)

    at pay (/app/web/checkout.js:2:17)
    at run (/app/web/main.js:6:5)
    at Object.<anonymous> (/app/web/main.js:13:1)
'''

PYTEST = '''tests/test_shop.py:9: in test_refund
    refund(7)

shop/payments.py:5: in refund
    return REFUNDS[order]

shop/store.py:3: in lookup
    return table[key]
'''


def test_two_traces_frames_pasted_alone_are_each_read_most_recent_call_first():
    # read as one traceback, backwards, the second's raising frame came first and the first's after all but one
    assert [(path, line) for path, line, _ in frames(PYTHON)[:2]] == [("/app/shop/orders.py", 2),
                                                                      ("/app/shop/payments.py", 5)]
    # read as one of Node's, the second's throw came after all of the first's frames
    assert [(path, line) for path, line, _ in frames(NODE)[:2]] == [("/app/web/cart.js", 2),
                                                                    ("/app/web/checkout.js", 2)]
    assert [line for _, line, _ in frames(PYTEST)] == [9, 5, 3]  # one trace, as written
