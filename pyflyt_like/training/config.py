"""The hyperparameters of :func:`~pyflyt_like.training.train_ppo`, checked on construction."""

from __future__ import annotations

from dataclasses import dataclass

from pyflyt_like.common.validation import (
    check_bool,
    check_choice,
    check_finite,
    check_int,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
    check_positive_int_tuple,
    check_seed,
    check_unit_interval,
)

from .memory import check_config_memory
from .networks import ACTIVATIONS

__all__ = ["LOG_STD_LIMIT", "PPOConfig", "check_activation", "check_init_log_std"]

#: Bound on ``|init_log_std|``: exp(+-20) is 5e8 and 2e-9, well inside float32, whose exp
#: overflows past 88 and whose inverse standard deviation overflows below -88.
LOG_STD_LIMIT = 20.0


@dataclass(frozen=True)
class PPOConfig:
    """Hyperparameters of :func:`~pyflyt_like.training.train_ppo`; every field is checked on
    construction. Frozen: derive a variant with ``dataclasses.replace(config, ...)``, which
    checks again.

    Attributes:
        n_steps: rollout length per env per iteration [env steps].
        total_steps: env steps to train for, summed over envs; rounded up to whole
            iterations of ``num_envs * n_steps`` steps.
        learning_rate: Adam step size.
        anneal_lr: decay the learning rate linearly to 0 over the iterations.
        gamma: discount factor per env step, in [0, 1].
        gae_lambda: GAE lambda, in [0, 1].
        n_epochs: passes over each rollout.
        n_minibatches: minibatches per pass; a minibatch holds about
            ``num_envs * n_steps / n_minibatches`` transitions (reset transitions dropped).
        clip_range: PPO ratio clip epsilon, > 0.
        ent_coef: weight of the entropy bonus, >= 0.
        vf_coef: weight of the value loss, >= 0.
        max_grad_norm: global gradient-norm clip, > 0, or None for no clipping.
        hidden_sizes: widths of the hidden layers of both the actor and the critic MLP.
        activation: "tanh", "relu" or "elu".
        init_log_std: initial value of the state-independent log standard deviation of the
            Gaussian policy (in action units), in [-20, 20]: beyond, the float32 standard
            deviation and its inverse under- or overflow.
        normalize_observations: keep running mean/variance of observations (updated from
            each rollout) and feed the networks normalised, clipped observations.
        normalize_advantages: standardise advantages over each rollout's valid transitions.
        reward_scale: rewards are multiplied by this before training (not in the reported
            episode returns).
        seed: an int in [0, 2**63) that seeds the env reset, the network initialisation and
            the sampling; None draws a fresh seed from the OS, so each run differs.
        critic_warmup_iterations: first iterations in which only the critic learns (the
            actor and its log std stay as they are), so that fine-tuning a pretrained actor
            starts from advantages of a fitted critic rather than of a random one.
        target_kl: None, or stop an iteration's epochs early once the mean approximate KL
            divergence of an epoch's minibatches from the acting policy exceeds
            ``1.5 * target_kl`` [nats] (a step-size bound on top of the clip).
        bc_coef: weight of a behaviour-cloning term, the mean squared distance between the
            actor's mean action and a reference policy's (``train_ppo(reference=...)``) on
            the rollout's observations [action units squared]; 0 for none.
        bc_decay_iterations: iterations after the warm-up over which ``bc_coef`` decays
            linearly to 0; 0 keeps it constant.

    Numbers may be Python or numpy numbers; a bool is no number and a string is never
    parsed (TypeError). Values out of range raise ValueError naming the field, and so does
    a ``hidden_sizes`` or ``n_steps`` too large to train even on one env with 1-D spaces
    (the estimate of :mod:`pyflyt_like.training.memory` against half the machine's memory).
    Finite but extreme values of ``learning_rate``, ``reward_scale``, ``ent_coef`` or
    ``vf_coef`` are accepted; if they make training diverge,
    :func:`~pyflyt_like.training.train_ppo` stops with a ``NumericalError``.
    """

    n_steps: int = 32
    total_steps: int = 2_000_000
    learning_rate: float = 3e-4
    anneal_lr: bool = False
    gamma: float = 0.99
    gae_lambda: float = 0.95
    n_epochs: int = 5
    n_minibatches: int = 4
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float | None = 0.5
    hidden_sizes: tuple[int, ...] = (64, 64)
    activation: str = "tanh"
    init_log_std: float = -0.5
    normalize_observations: bool = True
    normalize_advantages: bool = True
    reward_scale: float = 1.0
    seed: int | None = 0
    critic_warmup_iterations: int = 0
    target_kl: float | None = None
    bc_coef: float = 0.0
    bc_decay_iterations: int = 0

    def __post_init__(self) -> None:
        # Checked in field order, so the first bad field is the one reported.
        checked = {
            "n_steps": check_positive_int("n_steps", self.n_steps),
            "total_steps": check_positive_int("total_steps", self.total_steps),
            "learning_rate": check_positive_float("learning_rate", self.learning_rate),
            "anneal_lr": check_bool("anneal_lr", self.anneal_lr),
            "gamma": check_unit_interval("gamma", self.gamma),
            "gae_lambda": check_unit_interval("gae_lambda", self.gae_lambda),
            "n_epochs": check_positive_int("n_epochs", self.n_epochs),
            "n_minibatches": check_positive_int("n_minibatches", self.n_minibatches),
            "clip_range": check_positive_float("clip_range", self.clip_range),
            "ent_coef": check_non_negative_float("ent_coef", self.ent_coef),
            "vf_coef": check_non_negative_float("vf_coef", self.vf_coef),
            "max_grad_norm": (None if self.max_grad_norm is None else check_positive_float(
                "max_grad_norm (or None)", self.max_grad_norm)),
            "hidden_sizes": check_positive_int_tuple("hidden_sizes", self.hidden_sizes),
            "activation": check_activation(self.activation),
            "init_log_std": check_init_log_std(self.init_log_std),
            "normalize_observations": check_bool("normalize_observations",
                                                 self.normalize_observations),
            "normalize_advantages": check_bool("normalize_advantages",
                                               self.normalize_advantages),
            "reward_scale": check_positive_float("reward_scale", self.reward_scale),
            "seed": check_seed("seed", self.seed),
            "critic_warmup_iterations": check_count("critic_warmup_iterations",
                                                    self.critic_warmup_iterations),
            "target_kl": (None if self.target_kl is None else check_positive_float(
                "target_kl (or None)", self.target_kl)),
            "bc_coef": check_non_negative_float("bc_coef", self.bc_coef),
            "bc_decay_iterations": check_count("bc_decay_iterations",
                                               self.bc_decay_iterations),
        }
        if checked["critic_warmup_iterations"] and not checked["vf_coef"]:
            raise ValueError("critic_warmup_iterations > 0 trains only the critic, which "
                             "vf_coef=0 switches off: give vf_coef > 0")
        check_config_memory(checked["n_steps"], checked["hidden_sizes"],
                            checked["n_minibatches"])
        # The dataclass is frozen; construction is the one place its fields are written, to
        # store the normalised values (ints as int, sequences as tuples).
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def bc_weight(self, iteration: int) -> float:
        """The behaviour-cloning weight of ``iteration`` (from 1): ``bc_coef`` from the first
        iteration after the critic's warm-up, decaying linearly to 0 over
        ``bc_decay_iterations`` (constant if 0)."""
        if not self.bc_decay_iterations:
            return self.bc_coef
        done = max(0, iteration - 1 - self.critic_warmup_iterations)
        return self.bc_coef * max(0.0, 1.0 - done / self.bc_decay_iterations)


def check_count(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 0 (a count of iterations), else raise naming it."""
    value = check_int(name, value)
    if value < 0:
        raise ValueError(f"{name} must be an int >= 0, got {value!r}")
    return value


def check_activation(value: object) -> str:
    """Return ``value`` if it names an activation of the policy MLPs ("tanh", "relu",
    "elu"), else raise ValueError listing them."""
    return check_choice("activation", value, tuple(ACTIVATIONS))



def check_init_log_std(value: object) -> float:
    """Return ``value`` as a float if it is a finite number in [-LOG_STD_LIMIT,
    LOG_STD_LIMIT], else raise naming ``init_log_std``."""
    value = check_finite("init_log_std", value)
    if abs(value) > LOG_STD_LIMIT:
        raise ValueError(f"init_log_std must be in [-{LOG_STD_LIMIT:g}, {LOG_STD_LIMIT:g}] "
                         f"(a standard deviation of exp(init_log_std) action units), "
                         f"got {value!r}")
    return value
