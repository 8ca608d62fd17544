"""The built-in experiments, one module each with its click command (``dataplane scenario NAME``)
and a ``run_*`` function for Python: ``pic`` (prefix-independent failover: flat FIB vs PIC vs
data-plane reroute; control planes in ``pic_controllers``), ``incast`` (drop-tail vs ECN/DCQCN
vs PFC), ``allreduce`` (in-network aggregation vs ring) and ``vxlan`` (tenant overlays on a DPU);
``*_plots`` draw their figures.
"""
