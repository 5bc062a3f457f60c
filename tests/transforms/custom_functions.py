"""Functions with custom rules, shared by the op cases (tests/ops/cases_custom.py) and
tests/transforms/test_custom.py, which checks them against the same rules written for JAX."""
import frame.numpy as fnp
from frame.frontend.custom import custom_jvp, custom_vjp


@custom_vjp
def sin_times(x, y):
    return fnp.sin(x) * y


def sin_times_fwd(x, y):
    return sin_times(x, y), (fnp.cos(x), fnp.sin(x), y)


def sin_times_bwd(res, g):
    cos_x, sin_x, y = res
    return cos_x * g * y, fnp.sum(sin_x * g, axis=0)   # y broadcasts along axis 0


sin_times.defvjp(sin_times_fwd, sin_times_bwd)


@custom_vjp
def two_outputs(x):
    return {"e": fnp.exp(x), "s": fnp.sum(x * x)}


two_outputs.defvjp(lambda x: (two_outputs(x), (fnp.exp(x), x)),
                    lambda res, g: (res[0] * g["e"] + 2.0 * res[1] * g["s"],))


@custom_jvp
def log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + fnp.exp(x)))


@custom_jvp
def hypot_and_ratio(x, y):
    return fnp.sqrt(x * x + y * y), x / y


@hypot_and_ratio.defjvp
def hypot_and_ratio_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    r = fnp.sqrt(x * x + y * y)
    return (r, x / y), ((x * tx + y * ty) / r, tx / y - x * ty / (y * y))
