# The PTX of one instantiation of kernels/whole_graph.cu from two kernel folders, compared (mangled names
# normalised): checks that a change leaves an instantiation's code as it was, e.g. that the kernel without
# the packed late pull levels (kPacked false) is the kernel before they were added:
#   git archive f9f914d kernels | tar x -C /tmp/old
#   python notebooks/experiments/whole_graph_ptx_compare.py /tmp/old/kernels "whole_graph_levels<1, true, BFSOp>" \
#       kernels "whole_graph_levels<1, true, false, BFSOp>"
# Needs NVRTC (cuda-python's cuda.bindings), no GPU. Prints IDENTICAL or the first lines of the difference.
import difflib
import re
import sys

from cuda.bindings import nvrtc


def ptx(kdir, expr):
    src = open(f"{kdir}/whole_graph.cu").read().encode()
    _, prog = nvrtc.nvrtcCreateProgram(src, b"whole_graph.cu", 0, [], [])
    nvrtc.nvrtcAddNameExpression(prog, expr.encode())
    opts = [b"-std=c++17", f"-I{kdir}".encode(), b"--gpu-architecture=compute_90"]
    nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    _, name = nvrtc.nvrtcGetLoweredName(prog, expr.encode())
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * size
    nvrtc.nvrtcGetPTX(prog, buf)
    text = buf.decode()
    body = text[text.index(".entry " + name.decode()):]
    return re.sub(r"_Z\w+", "KNAME", body[:body.find("\n}\n")])


a, b = ptx(sys.argv[1], sys.argv[2]), ptx(sys.argv[3], sys.argv[4])
print(len(a), len(b), "IDENTICAL" if a == b else "DIFFERENT")
if a != b:
    print("\n".join(list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[:60]))
