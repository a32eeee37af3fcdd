"""Loop programs the tests of several folders share."""

import s4tf


def newton_sqrt(a):
    """Newton's square root of ``a``, a ``while_loop`` stopping on its largest step (which it
    does not return)."""
    def body(state):
        y, _ = state
        new = 0.5 * (y + a / y)
        return new, s4tf.max(s4tf.abs(new - y))
    return s4tf.lax.while_loop(lambda s: s[1] > 1e-6, body, (a, s4tf.max(a)))[0]
