"""``s4tf.scipy.stats``: the distributions of ``jax.scipy.stats`` that ported code calls,
with SciPy's arguments, differentiable in every argument.

```python
import numpy as np
from s4tf.scipy.stats import norm

norm.logpdf(np.array([0.0, 1.5]), loc=1.0, scale=2.0), norm.ppf(np.array([0.025, 0.5]))
```
"""

from s4tf.scipy.stats import logistic, multivariate_normal, norm, uniform

__all__ = ["logistic", "multivariate_normal", "norm", "uniform"]
