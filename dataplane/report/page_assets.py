"""The report page's inline CSS and script (hover read-out on the charts). Kept apart from
``page.py`` so the page's structure reads without them; nothing here is fetched."""

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1180px;padding:0 18px 40px;color:#222}
h1{font-size:22px;margin:18px 0 2px}h2{font-size:19px;border-bottom:2px solid #3b6ea8;padding-bottom:3px;margin-top:34px}
h3{font-size:16px;margin:22px 0 6px}h4{font-size:14px;margin:14px 0 4px}
.sub,.note{color:#666;margin:2px 0 8px}.note{font-size:12px}.none{color:#777;font-style:italic}
nav ol{columns:3;font-size:13px}
table{border-collapse:collapse;font-size:12.5px;margin:4px 0}th,td{border:1px solid #ddd;padding:2px 7px;text-align:left}
th,td{overflow-wrap:break-word}section.provenance td{overflow-wrap:anywhere}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f1f4f8}th[scope=row]{font-weight:normal;min-width:12em}
.wide{max-width:100%;overflow-x:auto;max-height:420px;overflow-y:auto}section.results .wide{max-height:none}
details summary{cursor:pointer;font-size:13px;margin:4px 0}p.window{margin:2px 0 8px}
svg.topology{max-width:100%;height:auto;display:block}svg.topology text{font-size:11px;fill:#333}
.linklabel{font-size:9px!important;fill:#666!important}.cross{font-size:15px!important;font-weight:bold;fill:#d62728!important}
.legend,.keys{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:4px 0}
.legend i,.keys i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px;border-radius:2px}
figure.chartbox{margin:10px 0 18px}figcaption{font-weight:600;font-size:13px}
svg.chart{width:100%;max-width:760px;height:auto;display:block;background:#fcfcfd}
svg.chart .grid{stroke:#e6e6e6}svg.chart .axis{stroke:#888}svg.chart .tick{font-size:10px;fill:#555}
svg.chart .label{font-size:11px;fill:#333}svg.chart .marker line{stroke:#d62728;stroke-dasharray:4 3}
svg.chart .cursor{stroke:#444;stroke-width:.7}
#tip{position:fixed;pointer-events:none;background:rgba(255,255,255,.96);border:1px solid #999;border-radius:4px;
padding:4px 7px;font-size:12px;box-shadow:0 1px 4px rgba(0,0,0,.2);white-space:nowrap;z-index:9}
ol.events time{display:inline-block;min-width:90px;color:#555;font-variant-numeric:tabular-nums}
"""

# For each chart: on pointer move, map the pointer to the data's x, take every series' point
# nearest to it (binary search on its sorted x), draw the cursor there and list the values.
SCRIPT = r"""
(function(){
"use strict";
var tip=document.getElementById("tip");
function fmt(v){if(v===0)return"0";var a=Math.abs(v);if(a>=1e6||a<1e-3)return v.toExponential(2);return String(+v.toPrecision(4));}
function nearest(xs,x){var lo=0,hi=xs.length-1;while(hi-lo>1){var m=(lo+hi)>>1;if(xs[m]<x)lo=m;else hi=m;}
return(Math.abs(xs[lo]-x)<=Math.abs(xs[hi]-x))?lo:hi;}
function atStep(xs,x){var lo=0,hi=xs.length-1;if(x<xs[0])return -1;while(hi-lo>1){var m=(lo+hi)>>1;if(xs[m]<=x)lo=m;else hi=m;}
return xs[hi]<=x?hi:lo;}
function setup(svg){
  var d=JSON.parse(svg.getAttribute("data-chart"));var box=d.box;var cursor=svg.querySelector(".cursor");
  function move(ev){
    var p=svg.createSVGPoint();p.x=ev.clientX;p.y=ev.clientY;var m=svg.getScreenCTM();if(!m)return;
    var q=p.matrixTransform(m.inverse());var f=(q.x-box[0])/box[2];
    if(f<0||f>1){leave();return;}
    var x=d.x[0]+f*(d.x[1]-d.x[0]);
    var lines=["<b>"+(d.unit?fmt(x/d.scale)+" "+d.unit:fmt(x))+"</b>"];
    d.series.forEach(function(s){
      if(!s.x.length)return;var i=d.step?atStep(s.x,x):nearest(s.x,x);if(i<0)return;
      lines.push('<span style="color:'+s.colour+'">\u25A0</span> '+s.name.replace(/[&<>]/g,function(c){return{"&":"&amp;","<":"&lt;",">":"&gt;"}[c];})+": "+fmt(s.y[i])+" "+d.ylabel);
    });
    cursor.setAttribute("x1",q.x);cursor.setAttribute("x2",q.x);cursor.setAttribute("visibility","visible");
    tip.innerHTML=lines.join("<br>");tip.hidden=false;
    var left=ev.clientX+14;if(left+tip.offsetWidth>window.innerWidth)left=ev.clientX-14-tip.offsetWidth;
    tip.style.left=left+"px";tip.style.top=(ev.clientY+12)+"px";
  }
  function leave(){cursor.setAttribute("visibility","hidden");tip.hidden=true;}
  svg.addEventListener("mousemove",move);svg.addEventListener("mouseleave",leave);
}
Array.prototype.forEach.call(document.querySelectorAll("svg.chart[data-chart]"),setup);
document.body.setAttribute("data-charts-ready",String(document.querySelectorAll("svg.chart[data-chart]").length));
})();
"""
