class ControlFlow(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.ControlFlow,
    x: Tensor,
    n: int) -> Tuple[Tensor, int]:
    _0 = uninitialized(int)
    _1 = uninitialized(Tensor)
    _2 = uninitialized(bool)
    acc = torch.zeros_like(x)
    acc0 = acc
    steps = 0
    _3 = 0
    _4 = torch.gt(n, 0)
    while _4:
      _5 = torch.eq(torch.remainder(_3, 3), 0)
      if _5:
        _6, _7, _8, _9, acc1 = False, _2, _1, _0, torch.add(acc0, x)
      else:
        _10 = torch.eq(torch.remainder(_3, 3), 1)
        if _10:
          acc3 = torch.sub(acc0, torch.mul(x, 0.5))
          _11, _12, _13, _14, acc2 = False, _2, _1, _0, acc3
        else:
          _11, _12, _13, _14, acc2 = True, True, acc0, steps, acc0
        _6, _7, _8, _9, acc1 = _11, _12, _13, _14, acc2
      if _6:
        _15, _16, _17, _18, _19, _20, _21 = True, _7, _8, _9, _2, _1, _0
      else:
        steps0 = torch.add(steps, 1)
        if torch.ge(_3, 7):
          _22, _23, _24, _25 = True, False, acc1, steps0
        else:
          _22, _23, _24, _25 = False, _2, _1, _0
        _15, _16, _17, _18, _19, _20, _21 = _22, _23, _24, _25, True, acc1, steps0
      if _15:
        _26, _27, _28 = _16, _17, _18
      else:
        _26, _27, _28 = _19, _20, _21
      _29 = torch.add(_3, 1)
      _30 = torch.__and__(torch.lt(_29, n), _26)
      _4, acc0, steps, _3 = _30, _27, _28, _29
    if torch.lt(0, n):
      _32 = torch.lt(torch.sum(torch.abs(acc0)), 100.)
      _31 = bool(_32)
    else:
      _31 = False
    acc4 = acc0
    k = 0
    _33 = _31
    while _33:
      acc5 = torch.mul(acc4, 1.5)
      k0 = torch.add(k, 1)
      if torch.lt(k0, n):
        _35 = torch.lt(torch.sum(torch.abs(acc5)), 100.)
        _34 = bool(_35)
      else:
        _34 = False
      _33, acc4, k = _34, acc5, k0
    if bool(torch.gt(torch.sum(x), 0)):
      acc6 = torch.relu(acc4)
    else:
      if bool(torch.lt(torch.sum(x), -1.)):
        acc7 = torch.neg(acc4)
      else:
        acc7 = torch.tanh(acc4)
      acc6 = acc7
    _36 = (acc6, torch.add(torch.mul(steps, 100), k))
    return _36
