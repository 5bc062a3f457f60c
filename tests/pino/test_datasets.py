"""pino.datasets: the Darcy, Navier-Stokes and Burgers space-time generators, their solvers, and the cache."""
import math

import numpy as np
import pytest

from pino import datasets as ds

PI = math.pi


# -- Darcy ---------------------------------------------------------------------------------------------------------
def _manufactured_darcy(n):
    """a = 2 + sin(x + 2y), u = sin(pi x) sin(pi y), f = -div(a grad u) on the n-point node grid."""
    x = np.linspace(0, 1, n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    u = np.sin(PI * X) * np.sin(PI * Y)
    a = 2 + np.sin(X + 2 * Y)
    a_x, a_y = np.cos(X + 2 * Y), 2 * np.cos(X + 2 * Y)
    u_x, u_y = PI * np.cos(PI * X) * np.sin(PI * Y), PI * np.sin(PI * X) * np.cos(PI * Y)
    return a, -(a_x * u_x + a_y * u_y) + 2 * PI ** 2 * a * u, u


@pytest.mark.parametrize("solver", ["lu", "cg"])
def test_darcy_solver_converges_at_second_order_on_a_manufactured_solution(solver):
    errors = []
    for n in (17, 33, 65):
        a, f, u = _manufactured_darcy(n)
        got = ds.solve_darcy(a, f) if solver == "lu" else ds.solve_darcy_batch(a[None], f[None])[0]
        errors.append(np.abs(got - u).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders > 1.9) and np.all(orders < 2.1), (errors, orders)   # measured 1.99-2.00
    assert errors[-1] < 5e-4


def test_darcy_cg_and_sparse_lu_solve_the_same_system():
    a = ds.darcy_coefficient(ds.darcy_grf(3, 41, seed=5))
    cg = ds.solve_darcy_batch(a)
    for i in range(3):
        lu = ds.solve_darcy(a[i])
        np.testing.assert_allclose(cg[i], lu, rtol=0, atol=1e-11 * np.abs(lu).max())
    assert np.all(cg[:, 0, :] == 0) and np.all(cg[:, :, -1] == 0)    # Dirichlet boundary


def test_darcy_field_is_thresholded_grf_and_data_is_deterministic_and_subsampled(tmp_path):
    field = ds.darcy_grf(2, 61, seed=0)
    assert field.shape == (2, 61, 61) and abs(field.mean()) < 0.1 * field.std()
    a = ds.darcy_coefficient(field)
    assert set(np.unique(a)) == {3.0, 12.0}
    one = ds.darcy_data(4, 31, solver_resolution=61, seed=7, cache=False, progress=False)
    two = ds.darcy_data(4, 31, solver_resolution=61, seed=7, cache=False, progress=False)
    other = ds.darcy_data(4, 31, solver_resolution=61, seed=8, cache=False, progress=False)
    assert one.inputs.shape == one.outputs.shape == (4, 1, 31, 31)
    np.testing.assert_array_equal(one.outputs, two.outputs)
    assert not np.array_equal(one.inputs, other.inputs)
    # Subsampling is striding of the fine solution: sample 0 again, solved directly at 61.
    rng = np.random.default_rng(7)
    fine_a = ds.darcy_coefficient(ds.darcy_grf(1, 61, seed=rng)[0])
    np.testing.assert_allclose(one.outputs[0, 0], ds.solve_darcy(fine_a)[::2, ::2], atol=1e-12)
    assert 0.002 < one.outputs.max() < 0.05       # the FNO data's u is ~0.01 for a in {3, 12}, f = 1
    with pytest.raises(ValueError, match="cannot be subsampled"):
        ds.darcy_data(2, 30, solver_resolution=61, cache=False, progress=False)


# -- cache ---------------------------------------------------------------------------------------------------------
def test_cache_round_trip_names_every_parameter_and_regenerates_corrupt_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FRAME_CACHE_DIR", str(tmp_path))
    assert ds.cache_dir() == tmp_path / "pino"
    first = ds.darcy_data(2, 11, solver_resolution=21, seed=3, progress=False)
    files = list((tmp_path / "pino").glob("*.npz"))
    assert len(files) == 1
    name = files[0].name
    for part in ("darcy", "num=2", "s=11", "solver=21", "seed=3", "high=12.0", "low=3.0", "tau=3.0", "method=cg"):
        assert part in name, name
    again = ds.darcy_data(2, 11, solver_resolution=21, seed=3, progress=False)
    np.testing.assert_array_equal(first.outputs, again.outputs)
    files[0].write_bytes(b"not an npz file")                       # corrupt: regenerated, not trusted
    regenerated = ds.darcy_data(2, 11, solver_resolution=21, seed=3, progress=False)
    np.testing.assert_array_equal(first.outputs, regenerated.outputs)
    np.savez(files[0], a=np.zeros((2, 11, 11)), u=np.zeros((5, 11, 11)))   # wrong shape: regenerated too
    np.testing.assert_array_equal(ds.darcy_data(2, 11, solver_resolution=21, seed=3, progress=False).outputs,
                                  first.outputs)
    with np.load(files[0], allow_pickle=False) as archive:
        np.testing.assert_array_equal(archive["u"], first.outputs[:, 0])
    assert not list((tmp_path / "pino").glob(".writing-*"))     # the temporary file was renamed away
    ds.darcy_data(2, 11, solver_resolution=21, seed=4, progress=False)
    assert len(list((tmp_path / "pino").glob("*.npz"))) == 2


def test_darcy_coarser_or_fewer_samples_come_from_a_cached_finer_run_without_solving(tmp_path, monkeypatch):
    fine = ds.darcy_data(4, 21, solver_resolution=41, seed=5, progress=False, cache_directory=tmp_path)
    solved = ds.darcy_data(3, 11, solver_resolution=41, seed=5, progress=False, cache=False)

    def no_solve(*args, **kwargs):
        raise AssertionError("solved again: the cached finer run should have been subsampled")

    monkeypatch.setattr(ds, "solve_darcy_batch", no_solve)
    coarse = ds.darcy_data(3, 11, solver_resolution=41, seed=5, progress=False, cache_directory=tmp_path)
    np.testing.assert_array_equal(coarse.inputs, fine.inputs[:3, :, ::2, ::2])
    np.testing.assert_array_equal(coarse.outputs, fine.outputs[:3, :, ::2, ::2])
    # the same fields as solving at 11 directly: a exactly, u to the CG tolerance (another batch grouping)
    np.testing.assert_array_equal(coarse.inputs, solved.inputs)
    np.testing.assert_allclose(coarse.outputs, solved.outputs, rtol=1e-9, atol=1e-14)
    assert (tmp_path / ds.cache_path("darcy", coarse.meta).name).exists()   # kept for next time
    # other parameters, more samples than cached, or a resolution the cached one does not subsample: solved
    for kwargs in (dict(num=3, resolution=11, seed=6), dict(num=5, resolution=11, seed=5),
                   dict(num=3, resolution=9, seed=5)):
        with pytest.raises(AssertionError, match="solved again"):
            ds.darcy_data(solver_resolution=41, progress=False, cache_directory=tmp_path, **kwargs)


def test_cache_path_distinguishes_close_floats():
    assert ds.cache_path("x", {"nu": 0.1}) != ds.cache_path("x", {"nu": 0.1000001})


# -- Navier-Stokes -------------------------------------------------------------------------------------------------
def test_navier_stokes_decays_a_steady_euler_flow_exactly():
    # Vorticity made of modes of one |k|^2 (here 5) is a steady Euler flow (u.grad w = 0), so under
    # viscosity each mode decays as exp(-nu 4 pi^2 |k|^2 t): a Taylor-Green-type exact solution.
    n, nu = 32, 0.01
    x = ds.torus_grid(n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    w0 = np.cos(2 * PI * (X + 2 * Y)) + np.sin(2 * PI * (2 * X + Y)) + 0.5 * np.cos(2 * PI * (2 * X - Y))
    errors = []
    for dt in (2e-2, 1e-2):
        w = ds.solve_navier_stokes(w0, None, viscosity=nu, final_time=1.0, dt=dt, record_steps=4)
        exact = np.stack([w0 * math.exp(-nu * 4 * PI ** 2 * 5 * t) for t in (0.25, 0.5, 0.75, 1.0)])
        errors.append(np.abs(w - exact).max())
    # Crank-Nicolson is second order: measured 1.2e-4 and 3.0e-5.
    assert errors[1] < 5e-5 and 3.5 < errors[0] / errors[1] < 4.5, errors


def test_navier_stokes_is_second_order_in_time_and_keeps_zero_mean_vorticity():
    w0 = ds.periodic_grf_2d(2, 32, seed=0)
    f = ds.ns_forcing(32)
    ref = ds.solve_navier_stokes(w0, f, final_time=1.0, dt=2.5e-4)
    e1 = np.abs(ds.solve_navier_stokes(w0, f, final_time=1.0, dt=4e-3) - ref).max()
    e2 = np.abs(ds.solve_navier_stokes(w0, f, final_time=1.0, dt=2e-3) - ref).max()
    assert 3.3 < e1 / e2 < 4.7, (e1, e2)
    w = ds.solve_navier_stokes(w0, f, final_time=1.0, dt=2e-3, record_steps=2)
    assert w.shape == (2, 2, 32, 32)
    assert np.abs(w.mean(axis=(-2, -1))).max() < 1e-12        # the forcing and the flow have zero mean


def test_navier_stokes_default_step_is_accurate_and_a_blow_up_is_reported():
    # the data's default dt against a 10x smaller one, at the FNO task's 64^2 over 5 unit times
    w0, f = ds.periodic_grf_2d(2, 64, seed=3), ds.ns_forcing(64)
    fine = ds.solve_navier_stokes(w0, f, final_time=5.0, dt=5e-4, record_steps=5)
    coarse = ds.solve_navier_stokes(w0, f, final_time=5.0, record_steps=5)
    assert np.linalg.norm(coarse - fine) / np.linalg.norm(fine) < 1e-5
    with pytest.raises(ValueError, match="no longer finite.*smaller dt"):
        ds.solve_navier_stokes(20 * w0, f, final_time=2.0, dt=0.05, record_steps=2)


def test_navier_stokes_grf_and_forcing_follow_the_fno_setting():
    w0 = ds.periodic_grf_2d(200, 16, seed=1)
    assert np.abs(w0.mean(axis=(1, 2))).max() < 1e-12
    # Variance of the field: sum over k != 0 of sigma^2 (4 pi^2 |k|^2 + 49)^-2.5 times 2 (re and im parts).
    k = np.fft.fftfreq(16, 1 / 16)
    lam = 7.0 ** 3 * (4 * PI ** 2 * (k[:, None] ** 2 + k[None, :] ** 2) + 49) ** -2.5
    lam[0, 0] = 0
    assert w0.var() == pytest.approx(2 * lam.sum(), rel=0.1)
    f = ds.ns_forcing(8)
    assert f[1, 2] == pytest.approx(0.1 * (math.sin(2 * PI * 3 / 8) + math.cos(2 * PI * 3 / 8)))


def test_navier_stokes_data_shapes_and_cache(tmp_path):
    data = ds.navier_stokes_data(3, 16, t_in=2, t_out=3, dt=5e-3, solver_resolution=32, progress=False,
                                 cache_directory=tmp_path)
    assert data.inputs.shape == (3, 2, 16, 16) and data.outputs.shape == (3, 3, 16, 16)
    w0 = ds.periodic_grf_2d(3, 32, seed=0)
    w = ds.solve_navier_stokes(w0, ds.ns_forcing(32), final_time=5.0, dt=5e-3, record_steps=5)
    np.testing.assert_allclose(data.outputs, w[:, 2:, ::2, ::2], atol=1e-12)
    again = ds.navier_stokes_data(3, 16, t_in=2, t_out=3, dt=5e-3, solver_resolution=32, progress=False,
                                  cache_directory=tmp_path)
    np.testing.assert_array_equal(again.inputs, data.inputs)


# -- Burgers in space-time -----------------------------------------------------------------------------------------
def _cole_hopf(amplitude, nu, times, n, fine=4096):
    """Burgers from u0 = amplitude sin(2 pi x) by Cole-Hopf: u = -2 nu phi_x / phi, phi solving the heat equation."""
    x = np.arange(fine) / fine
    phi0 = np.exp(-amplitude * (1 - np.cos(2 * PI * x)) / (2 * PI) / (2 * nu))
    k = 2 * PI * np.fft.rfftfreq(fine, 1 / fine)
    out = []
    for t in times:
        spectrum = np.fft.rfft(phi0) * np.exp(-nu * k ** 2 * t)
        out.append((-2 * nu * np.fft.irfft(1j * k * spectrum, fine) / np.fft.irfft(spectrum, fine))[::fine // n])
    return np.array(out)


def test_burgers_spacetime_matches_cole_hopf():
    n, nt = 128, 11
    x = np.arange(n) / n
    u = ds.solve_burgers_spacetime(0.5 * np.sin(2 * PI * x), viscosity=0.01, nt=nt, dt=1e-3)
    assert u.shape == (nt, n)
    np.testing.assert_allclose(u, _cole_hopf(0.5, 0.01, np.linspace(0, 1, nt), n), atol=1e-8)   # measured 1.3e-9


def test_burgers_pino_data_layout_and_determinism(tmp_path):
    data = ds.burgers_pino_data(3, 32, nt=6, solver_resolution=64, dt=1e-3, progress=False, cache_directory=tmp_path)
    assert data.inputs.shape == data.outputs.shape == (3, 1, 6, 32)
    np.testing.assert_array_equal(data.inputs[:, :, 3], data.outputs[:, :, 0])     # u0 repeated along t
    assert list(data.coords) == ["t", "x"] and data.coords["t"][-1] == 1.0
    again = ds.burgers_pino_data(3, 32, nt=6, solver_resolution=64, dt=1e-3, progress=False, cache=False)
    np.testing.assert_array_equal(again.outputs, data.outputs)
    assert np.abs(data.outputs[:, 0, -1]).max() < np.abs(data.outputs[:, 0, 0]).max()   # viscous decay


# -- chunks solved in threads --------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda **kw: ds.darcy_data(5, 5, solver_resolution=17, chunk=2, **kw),
    lambda **kw: ds.navier_stokes_data(5, 8, t_in=1, t_out=1, dt=1e-2, chunk=2, **kw),
    lambda **kw: ds.burgers_pino_data(5, 8, nt=3, solver_resolution=16, dt=1e-2, chunk=2, **kw),
], ids=["darcy", "navier-stokes", "burgers"])
def test_generators_give_the_same_bits_whatever_the_solver_threads(make):
    # 3 chunks (2 + 2 + 1 samples): in order, each solved as alone, so threads change nothing
    one = make(threads=1, progress=False, cache=False)
    three = make(threads=3, progress=False, cache=False)
    np.testing.assert_array_equal(three.inputs, one.inputs)
    np.testing.assert_array_equal(three.outputs, one.outputs)
    assert one.outputs.shape[0] == 5
    with pytest.raises(ValueError, match="threads must be an int >= 1"):
        make(threads=0, progress=False, cache=False)


def test_navier_stokes_data_are_the_same_bits_whatever_the_chunk():
    # the cache key leaves the chunk out: each trajectory's transforms must not depend on its batch
    one = ds.navier_stokes_data(5, 16, t_in=1, t_out=1, dt=1e-2, chunk=1, threads=1, progress=False, cache=False)
    five = ds.navier_stokes_data(5, 16, t_in=1, t_out=1, dt=1e-2, chunk=5, threads=1, progress=False, cache=False)
    np.testing.assert_array_equal(one.outputs, five.outputs)


def test_a_chunk_that_fails_in_a_thread_raises_its_error(monkeypatch):
    calls = []

    def solve(w0, *args, **kwargs):
        calls.append(len(w0))
        raise ValueError("solve_navier_stokes: the vorticity is no longer finite")

    monkeypatch.setattr(ds, "solve_navier_stokes", solve)
    with pytest.raises(ValueError, match="no longer finite"):
        ds.navier_stokes_data(9, 8, t_in=1, t_out=1, chunk=1, threads=2, progress=False, cache=False)
    assert len(calls) < 9     # the queued chunks were not started after the failure
