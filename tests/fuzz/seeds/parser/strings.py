class Strings(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.Strings,
    x: Tensor,
    text: str,
    sep: str) -> Tuple[str, List[str], Tensor]:
    parts = torch.split(text, sep)
    words = annotate(List[str], [])
    _0 = torch.len(parts)
    _1 = 0
    _2 = torch.gt(_0, 0)
    while _2:
      p = parts[_1]
      p0 = torch.strip(p)
      if torch.eq(torch.len(p0), 0):
        pass
      else:
        if torch.startswith(p0, "#"):
          _3 = torch.upper(torch.slice(p0, 1))
          _4 = torch.append(words, _3)
        else:
          _5 = torch.replace(torch.lower(p0), "a", "4")
          _6 = torch.append(words, _5)
      _7 = torch.add(_1, 1)
      _8 = torch.__and__(torch.lt(_7, _0), True)
      _2, _1 = _8, _7
    joined = torch.join("-", words)
    if torch.gt(torch.len(words), 0):
      first = words[0]
    else:
      first = ""
    msg = torch.format("{} has {} words; first={}", joined, torch.len(words), first)
    _9 = torch.mul(x, float(torch.len(words)))
    _10 = torch.add(_9, float(torch.len(joined)))
    return (msg, words, _10)
