"""frame.nn's torch.nn.functional losses: values against numpy formulas (eagerly, traced, float32), against
torch when it is installed, and first derivatives against torch autograd (when installed) and JAX."""
import numpy as np
import pytest
import scipy.special as sp

import frame
import frame.nn as nn
from frame.errors import ShapeError
from tests.nn.torch_cases import (Case, check_jax_derivatives, check_reference, check_torch, check_torch_grad,
                                  ids)

rng = np.random.default_rng(0)


def _red(loss, reduction):
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def _log_softmax(x, axis):
    return x - sp.logsumexp(x, axis=axis, keepdims=True)


def ref_nll(logp, target, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0):
    """torch's nll_loss / cross_entropy with class-index targets, position by position."""
    axis = 0 if logp.ndim == 1 else 1
    c = logp.shape[axis]
    rows = np.moveaxis(logp, axis, -1).reshape(-1, c)
    t = np.asarray(target).reshape(-1)
    w = np.ones(c) if weight is None else weight
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    wt = np.where(keep, w[safe], 0.0)
    nll = np.where(keep, -rows[np.arange(len(t)), safe] * wt, 0.0)
    smooth = np.where(keep, -(rows * w).sum(-1), 0.0)
    if reduction == "none":
        a, b = nll.reshape(np.shape(target)), smooth.reshape(np.shape(target))
    elif reduction == "sum":
        a, b = nll.sum(), smooth.sum()
    else:
        a, b = nll.sum() / wt.sum(), smooth.sum() / wt.sum()
    return (1 - smoothing) * a + smoothing / c * b


def ref_ce_probs(x, p, weight=None, reduction="mean", smoothing=0.0):
    axis = 0 if x.ndim == 1 else 1
    c = x.shape[axis]
    p = p * (1 - smoothing) + smoothing / c
    w = 1.0 if weight is None else weight.reshape([c if i == axis else 1 for i in range(x.ndim)])
    return _red(-(_log_softmax(x, axis) * p * w).sum(axis), reduction)


def ref_bce(x, t, w=None, reduction="mean"):
    with np.errstate(divide="ignore"):
        loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log(1 - x), -100))
    return _red(loss if w is None else loss * w, reduction)


def ref_bce_logits(x, t, w=None, reduction="mean", pos_weight=None):
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * t * -np.logaddexp(0, -x) + (1 - t) * -np.logaddexp(0, x))
    return _red(loss if w is None else loss * w, reduction)


def ref_gaussian(x, t, v, full=False, eps=1e-6, reduction="mean"):
    v = np.maximum(v, eps)
    loss = 0.5 * (np.log(v) + (x - t) ** 2 / v) + (0.5 * np.log(2 * np.pi) if full else 0.0)
    return _red(loss, reduction)


def ref_poisson(x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    loss = np.exp(x) - t * x if log_input else x - t * np.log(x + eps)
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
        loss = loss + np.where(t > 1, stirling, 0.0)
    return _red(loss, reduction)


def ref_cosine(x1, x2, dim=1, eps=1e-8):
    x1, x2 = np.broadcast_arrays(x1, x2)
    n1 = np.maximum(np.linalg.norm(x1, axis=dim, keepdims=True), eps)
    n2 = np.maximum(np.linalg.norm(x2, axis=dim, keepdims=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def ref_pairwise(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return np.linalg.norm(x1 - x2 + eps, ord=p, axis=-1, keepdims=keepdim)


def ref_pdist(x, p=2):
    n = len(x)
    return np.array([np.linalg.norm(x[i] - x[j], ord=p) for i in range(n) for j in range(i + 1, n)])


def ref_cos_embedding(x1, x2, y, margin=0.0, reduction="mean"):
    cos = (x1 * x2).sum(-1) / np.sqrt(((x1 ** 2).sum(-1) + 1e-12) * ((x2 ** 2).sum(-1) + 1e-12))
    return _red(np.where(y == 1, 1 - cos, 0.0) + np.where(y == -1, np.maximum(cos - margin, 0), 0.0), reduction)


def ref_triplet(a, p, n, margin=1.0, pn=2, eps=1e-6, swap=False, reduction="mean"):
    dp, dn = ref_pairwise(a, p, pn, eps), ref_pairwise(a, n, pn, eps)
    if swap:
        dn = np.minimum(dn, ref_pairwise(p, n, pn, eps))
    return _red(np.maximum(margin + dp - dn, 0), reduction)


def ref_multilabel(x, t, w=None, reduction="mean"):
    loss = -(t * -np.logaddexp(0, -x) + (1 - t) * -np.logaddexp(0, x))
    loss = loss if w is None else loss * w
    return _red(loss.sum(-1) / x.shape[-1], reduction)


def ref_kl(x, t, reduction="mean", log_target=False):
    loss = np.exp(t) * (t - x) if log_target else sp.xlogy(t, t) - t * x
    return loss.sum() / x.shape[0] if reduction == "batchmean" else _red(loss, reduction)


def _cases():
    x, t = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    t[0, 0] = x[0, 0] + 0.4                                      # inside smooth_l1 / huber's quadratic part
    w = rng.uniform(0.5, 2.0, size=(3, 4))
    cases = []
    for red in ("mean", "sum", "none"):
        cases += [
            Case(f"mse_loss-{red}", lambda a, b, r=red: nn.mse_loss(a, b, reduction=r),
                 lambda a, b, r=red: _red((a - b) ** 2, r), lambda F, a, b, r=red: F.mse_loss(a, b, reduction=r),
                 (x, t), wrt=(0, 1)),
            Case(f"l1_loss-{red}", lambda a, b, r=red: nn.l1_loss(a, b, reduction=r),
                 lambda a, b, r=red: _red(abs(a - b), r), lambda F, a, b, r=red: F.l1_loss(a, b, reduction=r),
                 (x, t), wrt=(0, 1)),
            Case(f"smooth_l1_loss-{red}", lambda a, b, r=red: nn.smooth_l1_loss(a, b, reduction=r, beta=0.7),
                 lambda a, b, r=red: _red(np.where(abs(a - b) < 0.7, 0.5 * (a - b) ** 2 / 0.7, abs(a - b) - 0.35), r),
                 lambda F, a, b, r=red: F.smooth_l1_loss(a, b, reduction=r, beta=0.7), (x, t), wrt=(0, 1)),
            Case(f"huber_loss-{red}", lambda a, b, r=red: nn.huber_loss(a, b, reduction=r, delta=0.7),
                 lambda a, b, r=red: _red(np.where(abs(a - b) < 0.7, 0.5 * (a - b) ** 2, 0.7 * (abs(a - b) - 0.35)), r),
                 lambda F, a, b, r=red: F.huber_loss(a, b, reduction=r, delta=0.7), (x, t), wrt=(0, 1)),
        ]
    cases += [
        Case("mse_loss-weighted", lambda a, b, c: nn.mse_loss(a, b, weight=c),
             lambda a, b, c: ((a - b) ** 2 * c).sum() / c.sum(), lambda F, a, b, c: F.mse_loss(a, b, weight=c),
             (x, t, w), wrt=(0, 1, 2)),
        Case("l1_loss-weighted-sum", lambda a, b, c: nn.l1_loss(a, b, reduction="sum", weight=c),
             lambda a, b, c: (abs(a - b) * c).sum(), lambda F, a, b, c: F.l1_loss(a, b, reduction="sum", weight=c),
             (x, t, w), wrt=(0, 2)),
        Case("huber_loss-weighted", lambda a, b, c: nn.huber_loss(a, b, weight=c),
             lambda a, b, c: (np.where(abs(a - b) < 1, 0.5 * (a - b) ** 2, abs(a - b) - 0.5) * c).mean(),
             lambda F, a, b, c: F.huber_loss(a, b, weight=c), (x, t, w), wrt=(0, 2)),
        Case("mse_loss-broadcast", lambda a, b: nn.mse_loss(a, b), lambda a, b: ((a - b) ** 2).mean(),
             lambda F, a, b: F.mse_loss(a, b), (x, t[:1]), wrt=(0, 1)),
        Case("mse_loss-legacy-size_average", lambda a, b: nn.mse_loss(a, b, size_average=False),
             lambda a, b: ((a - b) ** 2).sum(), lambda F, a, b: F.mse_loss(a, b, size_average=False), (x, t)),
        Case("smooth_l1_loss-beta0", lambda a, b: nn.smooth_l1_loss(a, b, beta=0.0), lambda a, b: abs(a - b).mean(),
             lambda F, a, b: F.smooth_l1_loss(a, b, beta=0.0), (x, t), wrt=(0, 1)),
    ]
    # cross_entropy / nll_loss: (C,), (N, C) and (N, C, d1, d2) layouts
    cw = rng.uniform(0.5, 2.0, size=5)
    for shape in [(5,), (4, 5), (2, 5, 3, 2)]:
        s = "x".join(map(str, shape))
        logits = rng.normal(size=shape)
        tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
        target = rng.integers(0, 5, size=tshape)
        if target.ndim:
            target.flat[0] = -100
        probs = np.moveaxis(rng.dirichlet(np.ones(5), size=tshape), -1, 1 if len(shape) > 1 else 0)
        logp = _log_softmax(logits, 1 if len(shape) > 1 else 0)
        for red in ("mean", "sum", "none"):
            cases += [
                Case(f"cross_entropy-{s}-{red}", lambda a, b, r=red: nn.cross_entropy(a, b, reduction=r),
                     lambda a, b, r=red: ref_nll(_log_softmax(a, 1 if a.ndim > 1 else 0), b, reduction=r),
                     lambda F, a, b, r=red: F.cross_entropy(a, b, reduction=r), (logits, target)),
                Case(f"cross_entropy-weighted-smoothed-{s}-{red}",
                     lambda a, b, c, r=red: nn.cross_entropy(a, b, c, reduction=r, label_smoothing=0.2),
                     lambda a, b, c, r=red: ref_nll(_log_softmax(a, 1 if a.ndim > 1 else 0), b, c, reduction=r,
                                                    smoothing=0.2),
                     lambda F, a, b, c, r=red: F.cross_entropy(a, b, c, reduction=r, label_smoothing=0.2),
                     (logits, target, cw)),
                Case(f"cross_entropy-probs-{s}-{red}",
                     lambda a, b, c, r=red: nn.cross_entropy(a, b, c, reduction=r, label_smoothing=0.1),
                     lambda a, b, c, r=red: ref_ce_probs(a, b, c, r, 0.1),
                     lambda F, a, b, c, r=red: F.cross_entropy(a, b, c, reduction=r, label_smoothing=0.1),
                     (logits, probs, cw), wrt=(0, 1)),
                Case(f"nll_loss-{s}-{red}", lambda a, b, c, r=red: nn.nll_loss(a, b, c, reduction=r),
                     lambda a, b, c, r=red: ref_nll(a, b, c, reduction=r),
                     lambda F, a, b, c, r=red: F.nll_loss(a, b, c, reduction=r), (logp, target, cw)),
            ]
        if target.ndim:
            hit = target.copy()
            hit.flat[0], hit.flat[1], hit.flat[-1] = 2, 2, 1
            cases.append(Case(f"cross_entropy-ignore_index2-{s}", lambda a, b: nn.cross_entropy(a, b, ignore_index=2),
                              lambda a, b: ref_nll(_log_softmax(a, 1), b, ignore_index=2),
                              lambda F, a, b: F.cross_entropy(a, b, ignore_index=2), (logits, hit)))
    p = rng.uniform(0.05, 0.95, size=(3, 4))
    y = rng.uniform(size=(3, 4))
    bw, pw = rng.uniform(0.5, 2.0, size=(4,)), rng.uniform(0.5, 3.0, size=(4,))
    z = rng.normal(size=(3, 4)) * 4
    edge = p.copy()
    edge[0, :2] = 0.0, 1.0                                             # log clamped at -100
    for red in ("mean", "sum", "none"):
        cases += [
            Case(f"binary_cross_entropy-{red}", lambda a, b, c, r=red: nn.binary_cross_entropy(a, b, c, reduction=r),
                 lambda a, b, c, r=red: ref_bce(a, b, c, r),
                 lambda F, a, b, c, r=red: F.binary_cross_entropy(a, b, c, reduction=r), (p, y, bw)),
            Case(f"binary_cross_entropy_with_logits-{red}",
                 lambda a, b, c, d, r=red: nn.binary_cross_entropy_with_logits(a, b, c, reduction=r, pos_weight=d),
                 lambda a, b, c, d, r=red: ref_bce_logits(a, b, c, r, d),
                 lambda F, a, b, c, d, r=red: F.binary_cross_entropy_with_logits(a, b, c, reduction=r, pos_weight=d),
                 (z, y, bw, pw), wrt=(0, 1, 2, 3), torch_wrt=(0, 1)),
        ]
    cases += [
        Case("binary_cross_entropy-clamped", lambda a, b: nn.binary_cross_entropy(a, b, reduction="none"),
             lambda a, b: ref_bce(a, b, reduction="none"),
             lambda F, a, b: F.binary_cross_entropy(a, b, reduction="none"), (edge, y), wrt=(), float32=False),
        Case("binary_cross_entropy_with_logits-plain", lambda a, b: nn.binary_cross_entropy_with_logits(a, b),
             lambda a, b: ref_bce_logits(a, b), lambda F, a, b: F.binary_cross_entropy_with_logits(a, b),
             (z, y), wrt=(0, 1)),
    ]
    lp = np.log(rng.dirichlet(np.ones(4), size=3))
    q = rng.dirichlet(np.ones(4), size=3)
    q0 = q.copy()
    q0[0, 1] = 0.0
    for red in ("mean", "sum", "none", "batchmean"):
        cases += [
            Case(f"kl_div-{red}", lambda a, b, r=red: nn.kl_div(a, b, reduction=r), lambda a, b, r=red: ref_kl(a, b, r),
                 lambda F, a, b, r=red: F.kl_div(a, b, reduction=r), (lp, q), wrt=(0, 1)),
            Case(f"kl_div-log_target-{red}", lambda a, b, r=red: nn.kl_div(a, b, reduction=r, log_target=True),
                 lambda a, b, r=red: ref_kl(a, b, r, True),
                 lambda F, a, b, r=red: F.kl_div(a, b, reduction=r, log_target=True), (lp, np.log(q)), wrt=(0, 1)),
        ]
    cases.append(Case("kl_div-zero-target", lambda a, b: nn.kl_div(a, b, reduction="none"),
                      lambda a, b: ref_kl(a, b, "none"), lambda F, a, b: F.kl_div(a, b, reduction="none"), (lp, q0)))
    counts = rng.integers(0, 5, size=(3, 4)).astype(float)
    rate = rng.uniform(0.2, 3.0, size=(3, 4))
    var = rng.uniform(0.05, 2.0, size=(3, 4))
    for full in (False, True):
        for red in ("mean", "sum", "none"):
            cases += [
                Case(f"poisson_nll_loss-full{full}-{red}",
                     lambda a, b, f=full, r=red: nn.poisson_nll_loss(a, b, full=f, reduction=r),
                     lambda a, b, f=full, r=red: ref_poisson(a, b, True, f, reduction=r),
                     lambda F, a, b, f=full, r=red: F.poisson_nll_loss(a, b, full=f, reduction=r), (x, counts)),
                Case(f"poisson_nll_loss-rate-full{full}-{red}",
                     lambda a, b, f=full, r=red: nn.poisson_nll_loss(a, b, log_input=False, full=f, reduction=r),
                     lambda a, b, f=full, r=red: ref_poisson(a, b, False, f, reduction=r),
                     lambda F, a, b, f=full, r=red: F.poisson_nll_loss(a, b, log_input=False, full=f, reduction=r),
                     (rate, counts)),
                Case(f"gaussian_nll_loss-full{full}-{red}",
                     lambda a, b, v, f=full, r=red: nn.gaussian_nll_loss(a, b, v, f, eps=0.1, reduction=r),
                     lambda a, b, v, f=full, r=red: ref_gaussian(a, b, v, f, 0.1, r),
                     lambda F, a, b, v, f=full, r=red: F.gaussian_nll_loss(a, b, v, f, eps=0.1, reduction=r),
                     (x, t, var), wrt=(0, 1, 2)),
            ]
    cases += [
        Case("gaussian_nll_loss-var-without-last-axis", lambda a, b, v: nn.gaussian_nll_loss(a, b, v),
             lambda a, b, v: ref_gaussian(a, b, v[:, None]), lambda F, a, b, v: F.gaussian_nll_loss(a, b, v),
             (x, t, var[:, 0]), wrt=(0, 1, 2)),
        Case("gaussian_nll_loss-homoscedastic", lambda a, b, v: nn.gaussian_nll_loss(a, b, v, reduction="none"),
             lambda a, b, v: ref_gaussian(a, b, v, reduction="none"),
             lambda F, a, b, v: F.gaussian_nll_loss(a, b, v, reduction="none"), (x, t, var[:, :1]), wrt=(0, 1, 2)),
        Case("gaussian_nll_loss-float-var", lambda a, b: nn.gaussian_nll_loss(a, b, 0.5),
             lambda a, b: ref_gaussian(a, b, 0.5), lambda F, a, b: F.gaussian_nll_loss(a, b, 0.5), (x, t), wrt=(0, 1)),
    ]
    a, b, c = rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    cases += [
        Case("cosine_similarity", lambda u, v: nn.cosine_similarity(u, v), ref_cosine,
             lambda F, u, v: F.cosine_similarity(u, v), (a, b), wrt=(0, 1)),
        Case("cosine_similarity-broadcast-dim-1", lambda u, v: nn.cosine_similarity(u, v, dim=-1),
             lambda u, v: ref_cosine(u, v, -1), lambda F, u, v: F.cosine_similarity(u, v, dim=-1), (a, b[:1]),
             wrt=(0, 1)),
        Case("cosine_similarity-zero-vector", lambda u, v: nn.cosine_similarity(u, v, dim=0),
             lambda u, v: ref_cosine(u, v, 0), lambda F, u, v: F.cosine_similarity(u, v, dim=0), (a * 0, b), wrt=()),
        Case("pairwise_distance-keepdim", lambda u, v: nn.pairwise_distance(u, v, keepdim=True),
             lambda u, v: ref_pairwise(u, v, keepdim=True), lambda F, u, v: F.pairwise_distance(u, v, keepdim=True),
             (a, b), wrt=(0, 1)),
        Case("pairwise_distance-p0", lambda u, v: nn.pairwise_distance(u, v, 0), lambda u, v: ref_pairwise(u, v, 0),
             lambda F, u, v: F.pairwise_distance(u, v, 0), (a, np.round(b)), wrt=()),
    ]
    for pn in (1, 3.5, np.inf):
        cases += [
            Case(f"pairwise_distance-p{pn}", lambda u, v, q=pn: nn.pairwise_distance(u, v, q),
                 lambda u, v, q=pn: ref_pairwise(u, v, q), lambda F, u, v, q=pn: F.pairwise_distance(u, v, q),
                 (a, b[0]), wrt=(0, 1)),
            Case(f"pdist-p{pn}", lambda u, q=pn: nn.pdist(u, q), lambda u, q=pn: ref_pdist(u, q),
                 lambda F, u, q=pn: F.pdist(u, q), (a,)),
        ]
    cases.append(Case("pdist-p2", nn.pdist, ref_pdist, lambda F, u: F.pdist(u), (rng.normal(size=(5, 3)),)))
    sign = np.array([1, -1, -1])
    x1, x2, yy = rng.normal(size=6), rng.normal(size=6), rng.choice([-1.0, 1.0], 6)
    ml = rng.integers(0, 2, size=(3, 5)).astype(float)
    mw = rng.uniform(0.5, 2.0, size=5)
    for red in ("mean", "sum", "none"):
        cases += [
            Case(f"cosine_embedding_loss-{red}", lambda u, v, s, r=red: nn.cosine_embedding_loss(u, v, s, 0.1, reduction=r),
                 lambda u, v, s, r=red: ref_cos_embedding(u, v, s, 0.1, r),
                 lambda F, u, v, s, r=red: F.cosine_embedding_loss(u, v, s, 0.1, reduction=r), (a, b, sign),
                 wrt=(0, 1)),
            Case(f"margin_ranking_loss-{red}", lambda u, v, s, r=red: nn.margin_ranking_loss(u, v, s, 0.2, reduction=r),
                 lambda u, v, s, r=red: _red(np.maximum(-s * (u - v) + 0.2, 0), r),
                 lambda F, u, v, s, r=red: F.margin_ranking_loss(u, v, s, 0.2, reduction=r), (x1, x2, yy),
                 wrt=(0, 1)),
            Case(f"hinge_embedding_loss-{red}", lambda u, s, r=red: nn.hinge_embedding_loss(u, s, 0.5, reduction=r),
                 lambda u, s, r=red: _red(np.where(s == 1, u, np.maximum(0.5 - u, 0)), r),
                 lambda F, u, s, r=red: F.hinge_embedding_loss(u, s, 0.5, reduction=r), (x1, yy)),
            Case(f"soft_margin_loss-{red}", lambda u, s, r=red: nn.soft_margin_loss(u, s, reduction=r),
                 lambda u, s, r=red: _red(np.log1p(np.exp(-s * u)), r),
                 lambda F, u, s, r=red: F.soft_margin_loss(u, s, reduction=r), (x1, yy), wrt=(0, 1),
                 torch_wrt=(0,)),
            Case(f"triplet_margin_loss-{red}",
                 lambda u, v, w_, r=red: nn.triplet_margin_loss(u, v, w_, 0.5, 3, reduction=r),
                 lambda u, v, w_, r=red: ref_triplet(u, v, w_, 0.5, 3, reduction=r),
                 lambda F, u, v, w_, r=red: F.triplet_margin_loss(u, v, w_, 0.5, 3, reduction=r), (a, b, c),
                 wrt=(0, 1, 2)),
            Case(f"multilabel_soft_margin_loss-{red}",
                 lambda u, s, w_, r=red: nn.multilabel_soft_margin_loss(u, s, w_, reduction=r),
                 lambda u, s, w_, r=red: ref_multilabel(u, s, w_, r),
                 lambda F, u, s, w_, r=red: F.multilabel_soft_margin_loss(u, s, w_, reduction=r), (a, ml, mw),
                 wrt=(0, 1, 2)),
        ]
    cases += [
        Case("triplet_margin_loss-swap", lambda u, v, w_: nn.triplet_margin_loss(u, v, w_, 2.0, swap=True),
             lambda u, v, w_: ref_triplet(u, v, w_, 2.0, swap=True),
             lambda F, u, v, w_: F.triplet_margin_loss(u, v, w_, 2.0, swap=True), (a, b, c), wrt=(0, 1, 2)),
        Case("cosine_embedding_loss-unbatched", lambda u, v, s: nn.cosine_embedding_loss(u, v, s),
             lambda u, v, s: ref_cos_embedding(u, v, s), lambda F, u, v, s: F.cosine_embedding_loss(u, v, s),
             (a[0], b[0], np.array(-1)), wrt=(0, 1)),
    ]
    return cases


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_the_formula_eagerly_traced_and_in_float32(case):
    check_reference(case)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_values_match_torch(case):
    check_torch(case)


DIFFERENTIABLE = [c for c in CASES if c.wrt]


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=ids(DIFFERENTIABLE))
def test_gradients_match_torch_autograd(case):
    check_torch_grad(case)


# One derivative check per function (and layout) against JAX: the reductions share their formulas.
JAX_CASES = [c for c in DIFFERENTIABLE if not c.id.endswith(("-sum", "-none"))]


@pytest.mark.parametrize("case", JAX_CASES, ids=ids(JAX_CASES))
def test_first_derivatives_match_jax(case):
    check_jax_derivatives(case)


def test_traced_targets_pick_their_classes():
    logits, target = rng.normal(size=(4, 3)), np.array([2, 0, -100, 1])
    f = frame.function(lambda x, t: nn.cross_entropy(x, t, label_smoothing=0.1))
    np.testing.assert_allclose(f(logits, target), ref_nll(_log_softmax(logits, 1), target, smoothing=0.1), rtol=1e-12)
    g = frame.grad(lambda x: nn.cross_entropy(x, target))(logits)
    soft = sp.softmax(logits, axis=1)
    want = (soft - np.eye(3)[np.where(target < 0, 0, target)]) * (target >= 0)[:, None] / 3
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-15)


def test_every_position_ignored_gives_nan_as_torch():
    with np.errstate(invalid="ignore"):
        assert np.isnan(nn.cross_entropy(rng.normal(size=(2, 3)), np.array([-100, -100])))
    assert nn.cross_entropy(rng.normal(size=(2, 3)), np.array([-100, -100]), reduction="sum") == 0.0


@pytest.mark.parametrize("call, pattern", [
    (lambda: nn.mse_loss(np.ones(3), np.ones(3), reduction="avg"), "reduction must be one of"),
    (lambda: nn.kl_div(np.ones(3), np.ones(3), reduction="batch"), "reduction must be one of"),
    (lambda: nn.mse_loss(np.ones(3), np.ones(3), weight=np.ones(2)), r"weight must have the input's shape \(3,\)"),
    (lambda: nn.smooth_l1_loss(np.ones(3), np.ones(3), beta=-1.0), "beta must be >= 0"),
    (lambda: nn.huber_loss(np.ones(3), np.ones(3), delta=0.0), "delta must be positive"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.array([0, 3])), "target 3 is out of bounds for 3 classes"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.array([0, 1, 2])), r"target must have shape \(2,\)"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.ones((2, 2))), r"class-probability target must have the input"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.ones((2, 3)), ignore_index=1), "ignore_index is not supported"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.array([0, 1]), np.ones(2)), r"weight must have shape \(3,\)"),
    (lambda: nn.cross_entropy(np.ones((2, 3)), np.array([0, 1]), label_smoothing=1.5), "label_smoothing must be in"),
    (lambda: nn.cross_entropy(np.float64(1.0), np.array(0)), "got a scalar"),
    (lambda: nn.nll_loss(np.ones((2, 3)), np.ones(2)), "integer class indices"),
    (lambda: nn.binary_cross_entropy(np.array([1.5]), np.array([1.0])), "between 0 and 1"),
    (lambda: nn.binary_cross_entropy(np.array([0.5]), np.array([1.0, 0.0])), r"target must have the input's shape"),
    (lambda: nn.binary_cross_entropy_with_logits(np.ones(2), np.ones(3)), r"target must have the input's shape"),
    (lambda: nn.gaussian_nll_loss(np.ones((2, 3)), np.ones((2, 3)), -1.0), "negative"),
    (lambda: nn.gaussian_nll_loss(np.ones((2, 3)), np.ones((2, 3)), -np.ones((2, 3))), "negative"),
    (lambda: nn.gaussian_nll_loss(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 3))), "incorrect size"),
    (lambda: nn.pdist(np.ones(3)), r"input must be \(N, M\)"),
    (lambda: nn.pdist(np.ones((3, 2)), -1), "p must be >= 0"),
    (lambda: nn.cosine_embedding_loss(np.ones((2, 3)), np.ones((2, 3)), np.ones(3)), r"target \(N,\) or \(\)"),
    (lambda: nn.margin_ranking_loss(np.ones(2), np.ones(2), np.ones(3)), "must have one shape"),
    (lambda: nn.triplet_margin_loss(np.ones((2, 3)), np.ones(3), np.ones(3)), r"all be \(N, D\) or \(D,\)"),
])
def test_bad_arguments_are_refused_by_name(call, pattern):
    with pytest.raises(ShapeError, match=pattern):
        call()
