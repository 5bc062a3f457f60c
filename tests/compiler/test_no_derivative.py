"""Ops differentiable in some operands only (`OpSchema.no_derivative`): gammainc(a, x) and gammaincc(a, x) in x,
betainc(a, b, x) in x, zeta(x, q) in q. Asking for a derivative in a refused operand raises `GradientError` naming
the op and the operand in every mode (reverse, forward, Taylor, their compositions, hessian, vmap of grad, the
training and row-parallel compile paths, imported JAX graphs), never a silent zero or NaN; derivatives in the other
operands work to any order, also in graphs that contain the op but do not differentiate through its refused operand.
"""
import jax
import numpy as np
import pytest

import frame
import frame.numpy as fnp
import frame.scipy.special as F
from frame.compiler import build_backward_graph, build_forward_graph
from frame.compiler.taylor import build_taylor_graph
from frame.errors import GradientError, TraceError
from frame.ops import find, register_op, unregister_op
from frame.runtime.compile import compile as compile_graph
from frame.runtime.row_parallel import RowParallelExecutable, RowPolicy

jax.config.update("jax_enable_x64", True)   # noqa: E402 - the JAX references in float64
import jax.numpy as jnp  # noqa: E402
import jax.scipy.special as JS  # noqa: E402

rng = np.random.default_rng(0)
A = rng.uniform(0.5, 3.0, (3, 4))
X = rng.uniform(0.2, 4.0, (3, 4))
T = rng.standard_normal((3, 4))
REFUSED_A = r"op 'gammainc' has no derivative in operand 0 \(a, the shape"


def f(a, x):
    return fnp.sum(F.gammainc(a, x) * fnp.sin(x))


def jf(a, x):
    return jnp.sum(JS.gammainc(a, x) * jnp.sin(x))


def test_the_ops_declare_their_refused_operands():
    assert set(find("gammainc").no_derivative) == set(find("gammaincc").no_derivative) == {0}
    assert set(find("betainc").no_derivative) == {0, 1} and set(find("zeta").no_derivative) == {0}
    assert find("add").no_derivative == {}


def test_register_op_checks_the_positions():
    with pytest.raises(ValueError, match="no_derivative takes operand positions"):
        register_op("nd_bad_position", shape=lambda ctx: [ctx.input_types[0]], kernel=lambda x: x, num_inputs=1,
                    no_derivative={1: "there is no operand 1"})
    with pytest.raises(ValueError, match="no_derivative takes operand positions"):
        register_op("nd_no_reason", shape=lambda ctx: [ctx.input_types[0]], kernel=lambda x: x, num_inputs=1,
                    no_derivative={0: ""})
    assert find("nd_bad_position") is None and find("nd_no_reason") is None


# -- reverse mode --------------------------------------------------------------------------------------
def test_reverse_mode_in_x_works_and_in_a_is_refused():
    np.testing.assert_allclose(frame.grad(f, argnums=1)(A, X), jax.grad(jf, argnums=1)(A, X), rtol=1e-12)
    for argnums in (0, (0, 1), (1, 0)):
        with pytest.raises(GradientError, match=REFUSED_A):
            frame.grad(f, argnums=argnums)(A, X)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.value_and_grad(f)(A, X)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.vjp(lambda a: F.gammainc(a, X), A)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.jacrev(lambda a: F.gammainc(a, X))(A)


def test_a_reached_through_other_ops_is_refused_unless_its_derivative_is_zero_on_the_way():
    """The refusal follows the cotangent a would get: through exp and a broadcast it reaches p; through
    stop_gradient or floor (derivative zero) it does not, and the derivative exists (it is the x part)."""
    p = rng.uniform(0.1, 0.5, (4,))
    with pytest.raises(GradientError, match=REFUSED_A + ".*w.r.t. input 0"):
        frame.grad(lambda p, x: f(fnp.exp(p) + 0.0 * x, x))(p, X)
    through_x = frame.grad(lambda p: f(frame.stop_gradient(fnp.exp(p)) + 1.0, p * X))(p)
    want = jax.grad(lambda p: jf(jax.lax.stop_gradient(jnp.exp(p)) + 1.0, p * X))(p)
    np.testing.assert_allclose(through_x, want, rtol=1e-12)
    floored = frame.grad(lambda p: fnp.sum(F.gammainc(fnp.floor(p * 4.0) + 3.0, X)))(p)
    assert np.all(floored == 0.0)   # floor's derivative is zero: nothing of a reaches p


def test_a_graph_containing_the_op_differentiates_through_everything_else():
    """a computed from an input that is not differentiated, the op's value used further on: grads of the other
    inputs are exact."""
    w = rng.standard_normal((4,))

    def loss(w, s, x):
        a = fnp.exp(s) + 0.5   # a traced shape, not differentiated
        y = F.gammaincc(a, x * fnp.exp(w)) + F.betainc(a, 2.0, fnp.tanh(x * w) ** 2) + F.zeta(a + 1.5, x + w ** 2)
        return fnp.sum(y * fnp.cos(w))

    def jloss(w, s, x):
        a = jnp.exp(s) + 0.5
        y = (JS.gammaincc(a, x * jnp.exp(w)) + JS.betainc(a, 2.0, jnp.tanh(x * w) ** 2)
             + JS.zeta(a + 1.5, x + w ** 2))
        return jnp.sum(y * jnp.cos(w))

    s = rng.uniform(-1.0, 1.0, (3, 1))
    np.testing.assert_allclose(frame.grad(loss)(w, s, X), jax.grad(jloss)(w, s, X), rtol=1e-10)
    np.testing.assert_allclose(frame.hessian(loss)(w, s, X), jax.hessian(jloss)(w, s, X), rtol=1e-9, atol=1e-12)
    with pytest.raises(GradientError, match="op '(gammaincc|betainc|zeta)' has no derivative in operand 0"):
        frame.grad(loss, argnums=1)(w, s, X)


def test_higher_orders_in_x_and_mixed_partials():
    """d^3/dx^3 by reverse mode three times; d/da of d/dx exists (the density is differentiable in a, JAX's too),
    but not once the value itself is part of what is differentiated in a."""
    g = lambda x: frame.grad(lambda x: f(A, x))(x)   # noqa: E731
    third = frame.grad(lambda x: fnp.sum(frame.grad(lambda x: fnp.sum(g(x) * T))(x)))(X)
    jg = jax.grad(lambda x: jf(A, x))
    want = jax.grad(lambda x: jnp.sum(jax.grad(lambda x: jnp.sum(jg(x) * T))(x)))(X)
    np.testing.assert_allclose(third, want, rtol=1e-9, atol=1e-12)
    plain = frame.grad(lambda a, x: fnp.sum(F.gammainc(a, x)), argnums=1)
    jplain = jax.grad(lambda a, x: jnp.sum(JS.gammainc(a, x)), argnums=1)
    mixed = frame.grad(lambda a: fnp.sum(plain(a, X) * T))(A)
    np.testing.assert_allclose(mixed, jax.grad(lambda a: jnp.sum(jplain(a, X) * T))(A), rtol=1e-10)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda a: fnp.sum(plain(a, X)) + f(a, X))(A)
    with pytest.raises(GradientError, match=REFUSED_A):   # f's x-derivative holds gammainc's value (product rule)
        frame.grad(lambda a: fnp.sum(frame.grad(f, argnums=1)(a, X)))(A)


def test_hessian():
    np.testing.assert_allclose(frame.hessian(f, argnums=1)(A, X), jax.hessian(jf, argnums=1)(A, X), rtol=1e-9,
                               atol=1e-12)
    for argnums in (0, (0, 1)):
        with pytest.raises(GradientError, match=REFUSED_A):
            frame.hessian(f, argnums=argnums)(A, X)


# -- forward mode and its compositions -------------------------------------------------------------------
def test_forward_mode():
    got = frame.jvp(lambda x: F.gammainc(A, x), (X,), (T,))[1]
    np.testing.assert_allclose(got, jax.jvp(lambda x: JS.gammainc(A, x), (X,), (T,))[1], rtol=1e-12)
    np.testing.assert_allclose(frame.jacfwd(lambda x: F.gammaincc(A[0], x))(X[0]),
                               jax.jacfwd(lambda x: JS.gammaincc(A[0], x))(X[0]), rtol=1e-12, atol=1e-15)
    for fn, primals, tangents in [(lambda a: F.gammainc(a, X), (A,), (T,)),
                                  (F.gammainc, (A, X), (T, T)),
                                  # a zero tangent that is traced is still a tangent
                                  (frame.function(lambda a, x, ta: frame.jvp(F.gammainc, (a, x), (ta, T))[1]),
                                   (A, X, np.zeros_like(A)), None)]:
        with pytest.raises(GradientError, match=REFUSED_A + r".*a tangent \(forward mode"):
            frame.jvp(fn, primals, tangents) if tangents is not None else fn(*primals)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.jacfwd(lambda a: F.gammainc(a, X))(A)
    # a concrete all-zero tangent holds its primal fixed (JAX's symbolic zero): a may then be an argument
    want = jax.jvp(lambda x: JS.gammainc(A, x), (X,), (T,))
    for zero in (np.zeros_like(A), np.zeros_like(A) * -1.0):
        got = frame.jvp(F.gammainc, (A, X), (zero, T))
        np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    value, f_jvp = frame.linearize(F.gammainc, A, X)
    np.testing.assert_allclose(value, want[0], rtol=1e-14)
    np.testing.assert_allclose(f_jvp(np.zeros_like(A), T), want[1], rtol=1e-12)
    with pytest.raises(GradientError, match=REFUSED_A):
        f_jvp(T, T)
    # stop_gradient gives a no tangent
    got = frame.jvp(lambda a, x: F.gammainc(frame.stop_gradient(a), x), (A, X), (T, T))[1]
    np.testing.assert_allclose(got, jax.jvp(lambda x: JS.gammainc(A, x), (X,), (T,))[1], rtol=1e-12)


def test_compositions_of_forward_and_reverse_mode():
    # forward over reverse, reverse over forward, forward over forward: in x
    s = lambda x: f(A, x)   # noqa: E731
    js = lambda x: jf(A, x)  # noqa: E731
    np.testing.assert_allclose(frame.jvp(frame.grad(s), (X,), (T,))[1], jax.jvp(jax.grad(js), (X,), (T,))[1],
                               rtol=1e-10)
    rof = frame.grad(lambda x: fnp.sum(frame.jvp(lambda x: F.gammainc(A, x), (x,), (T,))[1] * X))(X)
    np.testing.assert_allclose(rof, jax.grad(lambda x: jnp.sum(jax.jvp(lambda x: JS.gammainc(A, x), (x,), (T,))[1]
                                                             * X))(X), rtol=1e-10)
    fof = frame.jvp(lambda x: frame.jvp(lambda x: F.gammainc(A, x), (x,), (T,))[1], (X,), (X,))[1]
    np.testing.assert_allclose(fof, jax.jvp(lambda x: jax.jvp(lambda x: JS.gammainc(A, x), (x,), (T,))[1], (X,),
                                            (X,))[1], rtol=1e-10)
    # grad in a of a jvp in x: the tangent (the density) is differentiable in a, the primal output is not
    tangent_only = frame.grad(lambda a: fnp.sum(frame.jvp(lambda x: F.gammainc(a, x), (X,), (T,))[1]))(A)
    want = jax.grad(lambda a: jnp.sum(jax.jvp(lambda x: JS.gammainc(a, x), (X,), (T,))[1]))(A)
    np.testing.assert_allclose(tangent_only, want, rtol=1e-10)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda a: fnp.sum(frame.jvp(lambda x: F.gammainc(a, x), (X,), (T,))[0]))(A)
    # jvp in a of a grad in x: the same
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.jvp(lambda a: frame.value_and_grad(f, argnums=1)(a, X)[0], (A,), (T,))


# -- Taylor mode ------------------------------------------------------------------------------------------
def test_taylor_mode():
    """jet in x to order 4 against nested forward mode, the forward Laplacian against JAX's Hessians; a series in
    a refused operand is refused (jet, laplacian, the graph transform itself)."""
    def path(x):
        return F.gammainc(A, x) * F.zeta(A + 1.5, x)

    _, series = frame.jet(path, (X,), ((T, np.zeros_like(T), np.zeros_like(T), np.zeros_like(T)),))
    d = path
    for k in range(4):
        d = (lambda d: lambda x: frame.jvp(d, (x,), (T,))[1])(d)
        np.testing.assert_allclose(series[k], d(X), rtol=1e-9, atol=1e-12)
    # the forward Laplacian of a pointwise function of rows: row r's sum of second derivatives in x[r]
    lap = frame.laplacian(lambda x: fnp.sum(F.gammaincc(A[:, :1], x), axis=-1))(X)[1]
    row_hessians = jax.vmap(lambda a, x: jax.hessian(lambda x: jnp.sum(JS.gammaincc(a, x)))(x))(A[:, :1], X)
    np.testing.assert_allclose(lap, np.trace(row_hessians, axis1=1, axis2=2), rtol=1e-10)
    with pytest.raises(GradientError, match=REFUSED_A + r".*a series \(Taylor mode"):
        frame.jet(lambda a: F.gammainc(a, X), (A,), ((T, T),))
    with pytest.raises(GradientError, match=r"op 'zeta' has no derivative in operand 0 \(x, the exponent"):
        frame.laplacian(lambda x: fnp.sum(F.zeta(x + 1.5, A[:, :1])))(X)
    with pytest.raises(GradientError, match=r"op 'betainc' has no derivative in operand 1 \(b"):
        build_taylor_graph(frame.trace(lambda b: F.betainc(A, b, X / 5.0), A), [0], 2)


# -- vmap, control flow ---------------------------------------------------------------------------------
def test_vmap_of_grad_and_grad_of_vmap():
    per_row = frame.vmap(frame.grad(lambda a, x: fnp.sum(F.gammainc(a, x)), argnums=1))(A, X)
    np.testing.assert_allclose(per_row, jax.vmap(jax.grad(lambda a, x: jnp.sum(JS.gammainc(a, x)), argnums=1))(A, X),
                               rtol=1e-12)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.vmap(frame.grad(lambda a, x: fnp.sum(F.gammainc(a, x))))(A, X)
    np.testing.assert_allclose(frame.grad(lambda x: fnp.sum(frame.vmap(F.gammainc)(A, x)))(X),
                               jax.grad(lambda x: jnp.sum(jax.vmap(JS.gammainc)(A, x)))(X), rtol=1e-12)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda a: fnp.sum(frame.vmap(F.gammainc)(a, X)))(A)


def test_control_flow_regions():
    """Forward mode through a loop differentiates only the carried tangents. In reverse mode a region (cond, scan,
    checkpoint) refuses only the operands whose cotangent reaches a inside its body (`OpSchema.region_refusals`),
    also through the carry of a later step, naming gammainc; its other operands differentiate as JAX's."""
    loop = lambda a, x: frame.fori_loop(0, 2, lambda i, c: F.gammainc(a, c + 0.5), x)   # noqa: E731
    jloop = lambda a, x: jax.lax.fori_loop(0, 2, lambda i, c: JS.gammainc(a, c + 0.5), x)   # noqa: E731
    got = frame.function(lambda a, x: frame.jvp(lambda x: loop(a, x), (x,), (T,))[1])(A, X)
    np.testing.assert_allclose(got, jax.jvp(lambda x: jloop(A, x), (X,), (T,))[1], rtol=1e-12)
    np.testing.assert_allclose(frame.grad(lambda x: fnp.sum(loop(A, x)))(X),
                               jax.grad(lambda x: jnp.sum(jloop(A, x)))(X), rtol=1e-12)
    ckpt = frame.grad(lambda x: fnp.sum(frame.checkpoint(lambda x: F.gammainc(A, x))(x)))(X)
    np.testing.assert_allclose(ckpt, jax.grad(lambda x: jnp.sum(JS.gammainc(A, x)))(X), rtol=1e-12)
    # a traced a entering the regions, x differentiated: scan, cond, checkpoint, and compiled
    np.testing.assert_allclose(frame.grad(lambda a, x: fnp.sum(loop(a, x)), argnums=1)(A, X),
                               jax.grad(lambda a, x: jnp.sum(jloop(a, x)), argnums=1)(A, X), rtol=1e-12)
    branches = lambda a, x: frame.cond(fnp.sum(x) > 10.0, lambda a, x: F.gammainc(a, x) * x,   # noqa: E731
                                       lambda a, x: F.gammaincc(a, x), a, x)
    jbranches = lambda a, x: jax.lax.cond(jnp.sum(x) > 10.0, lambda a, x: JS.gammainc(a, x) * x,   # noqa: E731
                                          lambda a, x: JS.gammaincc(a, x), a, x)
    assert np.sum(X) > 10.0 > np.sum(0.2 * X)   # both branches
    for scale in (1.0, 0.2):
        np.testing.assert_allclose(frame.grad(lambda a, x: fnp.sum(branches(a, x)), argnums=1)(A, scale * X),
                                   jax.grad(lambda a, x: jnp.sum(jbranches(a, x)), argnums=1)(A, scale * X), rtol=1e-12)
    checkpointed = lambda a, x: fnp.sum(frame.checkpoint(lambda a, x: F.gammainc(a, x) * a)(a, x))   # noqa: E731
    np.testing.assert_allclose(frame.function(frame.grad(checkpointed, argnums=1))(A, X),
                               jax.grad(lambda a, x: jnp.sum(JS.gammainc(a, x) * a), argnums=1)(A, X), rtol=1e-12)
    for fn in (lambda a: fnp.sum(loop(a, X)), lambda a: fnp.sum(branches(a, X)), lambda a: checkpointed(a, X),
               frame.function(lambda a: fnp.sum(loop(a, X)))):
        with pytest.raises(GradientError, match=REFUSED_A + r".*the derivative w.r.t. input 0"):
            frame.grad(fn)(A)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda a, x: fnp.sum(loop(a, x)))(A, X)
    # x becomes the next step's shape: its cotangent reaches a one step later, so x is refused; y only feeds x
    swap = lambda x, y: frame.fori_loop(0, 3, lambda i, c: (y + c[1], F.gammainc(c[0], 1.5)), (x, y))[1]  # noqa: E731
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda x: fnp.sum(swap(x, A)))(A)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.grad(lambda y: fnp.sum(swap(A, y)))(A)
    once = lambda x, y: frame.fori_loop(0, 1, lambda i, c: (c[0], F.gammainc(c[0], c[1])), (x, y))[1]   # noqa: E731
    jonce = lambda x, y: jax.lax.fori_loop(0, 1, lambda i, c: (c[0], JS.gammainc(c[0], c[1])), (x, y))[1]   # noqa: E731
    np.testing.assert_allclose(frame.grad(lambda y: fnp.sum(once(A, y)))(X),
                               jax.grad(lambda y: jnp.sum(jonce(A, y)))(X), rtol=1e-12)


# -- the transforms' graphs and the compile paths --------------------------------------------------------
def test_graph_transforms_directly():
    graph = frame.trace(lambda a, x: fnp.sum(F.gammainc(a, x)), A, X)
    build_backward_graph(graph, 0, [1])
    build_forward_graph(graph, [1])
    build_taylor_graph(graph, [1], 3)
    with pytest.raises(GradientError, match=REFUSED_A + ".*w.r.t. input 0 of graph"):
        build_backward_graph(graph, 0, [1, 0])
    with pytest.raises(GradientError, match=REFUSED_A):
        build_forward_graph(graph, [0])
    with pytest.raises(GradientError, match=REFUSED_A):
        build_taylor_graph(graph, [0, 1], 2)


def test_compiled_gradients_whole_fused_and_row_parallel(monkeypatch):
    """A PINN-like step with rows: its gradient in the weights (not a) compiles whole (fused) and row-parallel
    with equal results; with a among the parameters the derivation refuses before anything compiles."""
    from frame.runtime import row_parallel
    monkeypatch.setattr(row_parallel, "MIN_CHUNK_ELEMENTS", 0)
    xs = rng.uniform(0.1, 2.0, (256, 1))
    w = rng.standard_normal((1, 8))
    a = rng.uniform(0.5, 3.0, (8,))

    def loss(w, a, xs):
        return fnp.mean(F.gammainc(a, fnp.exp(xs @ w)) * fnp.tanh(xs @ w))

    def step(w, a, xs):   # the weights' gradient and the loss value
        value, grad = frame.value_and_grad(loss)(w, a, xs)
        return grad, value

    def jloss(w):
        return jnp.mean(JS.gammainc(a, jnp.exp(xs @ w)) * jnp.tanh(xs @ w))

    graph = frame.trace(step, w, a, xs)
    whole = compile_graph(graph, rows=RowPolicy(1, 0))(w, a, xs)
    split_exe = compile_graph(graph, rows=RowPolicy(2, 0))
    assert isinstance(split_exe, RowParallelExecutable)
    split = split_exe(w, a, xs)
    np.testing.assert_allclose(whole[0], jax.grad(jloss)(w), rtol=1e-12)
    for u, v in zip(whole, split):
        np.testing.assert_allclose(v, u, rtol=1e-12)
    np.testing.assert_allclose(frame.function(step)(w, a, xs)[0], whole[0], rtol=1e-13)
    with pytest.raises(GradientError, match=REFUSED_A):
        frame.function(lambda w, a, xs: frame.grad(loss, argnums=(0, 1))(w, a, xs))(w, a, xs)


def test_training_refuses_a_parameter_the_loss_has_no_derivative_in():
    from frame.frontend.tracer import example_type
    from frame.train.loss_graph import LossGraph, as_param_leaves
    xs = rng.uniform(0.1, 2.0, (16, 1))

    def loss(params, xs):
        w, a = params
        return fnp.mean(F.gammainc(a, fnp.exp(xs @ w)))

    params = (rng.standard_normal((1, 4)), rng.uniform(0.5, 3.0, (4,)))
    leaves, treedef = as_param_leaves(params)
    lg = LossGraph(loss, treedef, [example_type(p) for p in leaves])
    with pytest.raises(GradientError, match=REFUSED_A + ".*w.r.t. input 1"):
        lg.value_and_grad(leaves, (xs,))
    # with a as data, the weights train, also with a symbolic row count (one trace for every size)
    lg = LossGraph(lambda w, xs, a: fnp.mean(F.gammainc(a, fnp.exp(xs @ w))), as_param_leaves(params[0])[1],
                   [example_type(params[0])], dynamic_axes={0: 0})
    for n in (16, 9):
        value, (gw,) = lg.value_and_grad([params[0]], (xs[:n], params[1]))
        want = jax.grad(lambda w: jnp.mean(JS.gammainc(params[1], jnp.exp(xs[:n] @ w))))(params[0])
        np.testing.assert_allclose(gw, want, rtol=1e-12)
    assert lg.trace_count == 1


# -- graphs imported from JAX -----------------------------------------------------------------------------
def test_imported_igamma_differentiates_in_x_and_refuses_a():
    from frame.interop import from_jax
    graph = from_jax(lambda a, x: jnp.sum(jax.lax.igamma(a, x) * jax.lax.igammac(a, x)), A, X)
    assert {"gammainc", "gammaincc"} <= {n.op for n in graph.nodes}
    derived = build_backward_graph(graph, 0, [1])
    got = compile_graph(derived)(A, X)[1]
    want = jax.grad(lambda x: jnp.sum(jax.lax.igamma(A, x) * jax.lax.igammac(A, x)))(X)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for wrt in ([0], [0, 1]):
        with pytest.raises(GradientError, match=r"op 'gammaincc?' has no derivative in operand 0 \(a, the shape"):
            build_backward_graph(graph, 0, wrt)
    with pytest.raises(GradientError, match=REFUSED_A):
        build_forward_graph(graph, [0])
    # a JAX graph already differentiated in a holds igamma_grad_a, which frame has no op for
    with pytest.raises(TraceError, match="igamma_grad_a"):
        from_jax(jax.grad(lambda a, x: jnp.sum(jax.lax.igamma(a, x))), A, X)
    imported_zeta = from_jax(lambda x, q: jnp.sum(jax.lax.zeta(x, q)), A + 1.5, X)
    got = compile_graph(build_backward_graph(imported_zeta, 0, [1]))(A + 1.5, X)[1]
    np.testing.assert_allclose(got, -(A + 1.5) * JS.zeta(A + 2.5, X), rtol=1e-12)
    with pytest.raises(GradientError, match=r"op 'zeta' has no derivative in operand 0"):
        build_backward_graph(imported_zeta, 0, [0])


# -- the mechanism on a throwaway op ----------------------------------------------------------------------
@pytest.fixture
def scaled_op():
    """scaled(s, x) = s * x with the derivative in s declared missing: a rule's None there must never be a zero."""
    from frame.ops.elementwise import binary
    binary("nd_scaled_test", np.multiply, lambda s, x, y, gy: (None, gy * s), operands="float", jax="jnp.multiply",
           no_derivative={0: "s, the probe's scale"})
    yield "nd_scaled_test"
    unregister_op("nd_scaled_test")


def test_a_throwaway_op_is_refused_in_s_everywhere(scaled_op):
    from frame.tracing import bind
    s, x = np.array([2.0, 3.0]), np.array([0.5, -1.0])
    fn = lambda s, x: fnp.sum(bind(scaled_op, s, x) ** 2.0)   # noqa: E731
    np.testing.assert_allclose(frame.grad(fn, argnums=1)(s, x), 2 * s * s * x)
    np.testing.assert_allclose(frame.hessian(fn, argnums=1)(s, x), np.diag(2 * s * s))
    match = rf"op '{scaled_op}' has no derivative in operand 0 \(s, the probe's scale\)"
    for call in (lambda: frame.grad(fn)(s, x), lambda: frame.jvp(lambda s: fn(s, x), (s,), (s,)),
                 lambda: frame.jet(lambda s: fn(s, x), (s,), ((s,),)), lambda: frame.hessian(fn, argnums=(0, 1))(s, x),
                 lambda: frame.vmap(frame.grad(lambda s, x: bind(scaled_op, s, x)))(s, x),
                 lambda: frame.grad(lambda s: fnp.sum(frame.jvp(lambda x: bind(scaled_op, s, x), (x,), (x,))[0]))(s)):
        with pytest.raises(GradientError, match=match):
            call()
