/*
 * cmd_report.c - `scope report PATH... -o report.html`: the whole profile
 * on one self-contained page that any browser opens offline: run facts and
 * warnings, a sortable summary table, the timeline, the flame graph and
 * the per-rank imbalance bars (the same SVG as `scope plot`), with
 * tooltips; for a run that recorded what its MPI calls moved, bytes sent
 * and received in the table, the communication pictures and the wait
 * states. The navigation links each section the page has, from the one
 * list of its sections. Nothing on the page refers to a URL.
 *
 * The page is written here in C: the summary goes in as JSON that a small
 * inline script turns into the table, the pictures as inline SVG. The
 * script also counts what the page shows into <pre id="scope-check">
 * (lanes, regions, boxes, bars, rows, script errors), which the tests read
 * back from a headless browser.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "out_file.h"
#include "output.h"
#include "scope_reader_waits.h"
#include "plots.h"
#include "scope_reader_comm.h"
#include "scope_reader_io.h"
#include "svg.h"

static const char report_help[] =
    "usage: scope report -o FILE.html [options] PATH...\n"
    "\n"
    "Writes one self-contained HTML page (no network needed to view it):\n"
    "run facts and warnings, the summary table (click a column to sort),\n"
    "a timeline with one lane per rank and thread, a flame graph of the call\n"
    "tree, and per-rank bars of each region's total that show imbalance.\n"
    "When the run recorded what its MPI calls moved, also: bytes sent and\n"
    "received per region in the table (as scope summary), the point-to-point\n"
    "communication matrix and message sizes (scope comm), the one-sided\n"
    "one when the run made one-sided calls, and the wait states (scope\n"
    "waits). When it recorded what its I/O calls did: an I/O section (the\n"
    "files with the most bytes, POSIX accesses by size, a heat map of the\n"
    "bytes each rank read and wrote over time; scope io has the rest). I/O\n"
    "calls have colours of their own everywhere: writes amber, reads gold,\n"
    "the other I/O calls pale tan. Hover a box or bar for its numbers. The\n"
    "pictures are those of `scope plot`.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE\n"
    "  --max-calls N     timeline: calls drawn per lane (default 4000; the\n"
    "                    longest are kept and the lane says so)\n"
    "  --max-regions N   imbalance: regions drawn (default 16)\n"
    "  -h, --help        this text\n";

static const char report_css[] =
    "*{box-sizing:border-box}"
    "body{margin:0;background:#eef1f5;color:#1d2430;font:14px/1.45 'DejaVu "
    "Sans','Segoe UI',Helvetica,Arial,sans-serif}"
    "header{background:#1d2b3a;color:#fff;padding:18px 28px}"
    "header h1{margin:0 0 4px;font-size:22px;font-weight:600}"
    "header .paths{color:#b8c4d2;font-family:'DejaVu Sans Mono',monospace;"
    "font-size:12px;word-break:break-all}"
    "dl.facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:12px 0 0}"
    "dl.facts div{min-width:90px}dl.facts dt{color:#8fa3b8;font-size:11px;"
    "text-transform:uppercase;letter-spacing:.05em}"
    "dl.facts dd{margin:0;font-size:15px;word-break:break-all}"
    "nav{padding:8px 28px;background:#fff;border-bottom:1px solid #d8dee6;"
    "position:sticky;top:0;z-index:2}nav a{margin-right:18px;color:#2b6cb0;"
    "text-decoration:none;font-weight:600}"
    "main{padding:16px 28px 40px}"
    "section{background:#fff;border:1px solid #d8dee6;border-radius:6px;"
    "padding:14px 18px;margin-bottom:18px}"
    "section h2{margin:0 0 4px;font-size:17px}"
    "p.note{margin:0 0 10px;color:#5a6778;font-size:12.5px}"
    ".warn{background:#fff4e5;border:1px solid #f0b35b;color:#7a4a00;"
    "border-radius:4px;padding:8px 12px;margin:10px 0 0}"
    ".pic{overflow-x:auto}.pic svg{max-width:100%;height:auto;display:block}"
    "table{border-collapse:collapse;width:100%;font-variant-numeric:"
    "tabular-nums}th,td{padding:5px 10px;border-bottom:1px solid #e6eaf0;"
    "text-align:right;white-space:nowrap}th{background:#f6f8fa;cursor:pointer;"
    "user-select:none;font-size:12.5px;color:#3b4756;position:sticky;"
    "top:38px}th:hover{background:#e9eef5}th.sorted{color:#1d2430}"
    "th:first-child,td:first-child{text-align:left}"
    "tbody tr:hover{background:#f5f8fc}"
    ".sw{display:inline-block;width:11px;height:11px;border-radius:2px;"
    "margin-right:7px;vertical-align:-1px}"
    ".sharebar{display:inline-block;height:8px;background:#8fb3dc;"
    "border-radius:2px;margin-left:6px;vertical-align:0}"
    "#tip{position:fixed;pointer-events:none;background:rgba(20,28,38,.94);"
    "color:#fff;padding:6px 9px;border-radius:4px;font-size:12px;"
    "white-space:pre;display:none;z-index:5;max-width:60vw;overflow:hidden}"
    "#scope-check{display:none}";

/* The script: table from #scope-data, sorting, tooltips from the SVG
 * <title>s, and the self-check counts. */
static const char report_js[] =
    "(function(){'use strict';\n"
    "var errors=[];\n"
    "window.addEventListener('error',function(e){errors.push(String(e.message));"
    "check();});\n"
    "function human(ns){var a=Math.abs(ns);\n"
    " if(a<999.5)return ns.toFixed(0)+' ns';\n"
    " if(a<999995)return (ns/1e3).toFixed(2)+' \\u00b5s';\n"
    " if(a<999995000)return (ns/1e6).toFixed(2)+' ms';\n"
    " return (ns/1e9).toFixed(2)+' s';}\n"
    "function bytes(b){if(b===0)return '0';var u=['B','KiB','MiB','GiB','TiB',"
    "'PiB','EiB'],k=0;while(b>=1024&&k<6){b/=1024;k++;}\n"
    " return (k?b.toFixed(1):b.toFixed(0))+' '+u[k];}\n"
    "var data=JSON.parse(document.getElementById('scope-data').textContent);\n"
    "var cols=[['region','name','s'],['calls','calls','n'],"
    "['total','total_ns','t'],['mean','mean_ns','t'],['min','min_ns','t'],"
    "['max','max_ns','t'],['std','std_ns','t'],['share','share','p']];\n"
    "if(data.moved)cols.push(['sent','bytes_sent','b'],"
    "['received','bytes_received','b']);\n"
    "cols.push(['max/mean','imbalance','x'],['ranks','ranks','n']);\n"
    "var table=document.getElementById('summary-table');\n"
    "var sortCol=2,sortDesc=true;\n"
    "function cell(r,c){var v=r[c[1]];\n"
    " if(c[2]==='s'){var td=document.createElement('td');"
    "var sw=document.createElement('span');sw.className='sw';"
    "sw.style.background=r.colour;td.appendChild(sw);"
    "td.appendChild(document.createTextNode(v));return td;}\n"
    " var t=document.createElement('td');\n"
    " if(c[2]==='t')t.textContent=human(v);\n"
    " else if(c[2]==='p'){t.textContent=(100*v).toFixed(1)+'%';"
    "var b=document.createElement('span');b.className='sharebar';"
    "b.style.width=Math.max(1,Math.min(60,60*v)).toFixed(1)+'px';"
    "t.appendChild(b);}\n"
    " else if(c[2]==='x')t.textContent=v.toFixed(2)+'\\u00d7';\n"
    " else if(c[2]==='b')t.textContent=bytes(v);\n"
    " else t.textContent=v.toLocaleString('en-US');\n"
    " t.title=String(v);return t;}\n"
    "function render(){var rows=data.regions.slice();var c=cols[sortCol];\n"
    " rows.sort(function(a,b){var x=a[c[1]],y=b[c[1]];"
    "var o=x<y?-1:x>y?1:0;return sortDesc?-o:o;});\n"
    " var head=document.createElement('tr');\n"
    " cols.forEach(function(k,i){var th=document.createElement('th');"
    "th.textContent=k[0]+(i===sortCol?(sortDesc?' \\u25bc':' \\u25b2'):'');"
    "if(i===sortCol)th.className='sorted';"
    "th.addEventListener('click',function(){if(sortCol===i)sortDesc=!sortDesc;"
    "else{sortCol=i;sortDesc=k[2]!=='s';}render();});head.appendChild(th);});\n"
    " var thead=document.createElement('thead');thead.appendChild(head);\n"
    " var tbody=document.createElement('tbody');\n"
    " rows.forEach(function(r){var tr=document.createElement('tr');"
    "cols.forEach(function(k){tr.appendChild(cell(r,k));});"
    "tbody.appendChild(tr);});\n"
    " table.replaceChildren(thead,tbody);}\n"
    "render();\n"
    "var tip=document.getElementById('tip');\n"
    "document.querySelectorAll('.pic svg title').forEach(function(t){"
    "var p=t.parentNode;p.setAttribute('data-tip',t.textContent);"
    "p.removeChild(t);});\n"
    "document.addEventListener('mousemove',function(e){"
    "var el=e.target.closest?e.target.closest('[data-tip]'):null;"
    "if(!el){tip.style.display='none';return;}"
    "tip.textContent=el.getAttribute('data-tip');tip.style.display='block';"
    "var x=e.clientX+14,y=e.clientY+14;"
    "if(x+tip.offsetWidth>window.innerWidth)x=e.clientX-tip.offsetWidth-10;"
    "if(y+tip.offsetHeight>window.innerHeight)y=e.clientY-tip.offsetHeight-10;"
    "tip.style.left=x+'px';tip.style.top=y+'px';});\n"
    "function n(sel){return document.querySelectorAll(sel).length;}\n"
    "function check(){document.getElementById('scope-check').textContent=\n"
    " 'lanes '+n('svg.scope-timeline g.lane')+'\\n'+\n"
    " 'calls '+n('svg.scope-timeline rect.call')+'\\n'+\n"
    " 'legend '+n('svg.scope-timeline g.legend-item')+'\\n'+\n"
    " 'flame_nodes '+n('svg.scope-flame rect.node')+'\\n'+\n"
    " 'panels '+n('svg.scope-imbalance g.panel')+'\\n'+\n"
    " 'bars '+n('svg.scope-imbalance rect.bar')+'\\n'+\n"
    " 'table_rows '+n('#summary-table tbody tr')+'\\n'+\n"
    " 'table_columns '+n('#summary-table thead th')+'\\n'+\n"
    " 'tooltips '+n('.pic [data-tip]')+'\\n'+\n"
    " 'errors '+errors.length+(errors.length?'\\n'+errors.join('\\n'):'');}\n"
    "check();\n"
    "})();\n";

/* A JSON string that is also safe inside <script>: '<', '>' and '&' are
 * written as \u escapes so no "</script>" can appear. */
static void put_json_html(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* One fact of the header, when the profile has it. */
static void fact(FILE *out, const char *label, const char *value)
{
    if (!value || !value[0])
        return;
    fprintf(out, "<div><dt>%s</dt><dd>", label);
    scope__xml_put(out, value);
    fputs("</dd></div>\n", out);
}

static void meta_fact(FILE *out, scope_profile *p, const char *label,
                      const char *attr)
{
    char buf[512];
    if (scope_profile_metadata_string(p, attr, buf, sizeof buf) >= 0)
        fact(out, label, buf);
}

static void write_header(FILE *out, scope_profile *p, char **paths, int npaths,
                         int64_t calls, int64_t span)
{
    char buf[64];
    int64_t v, dropped = 0;
    int recovered = 0, aborted = 0, abort_rank = -1;
    int64_t abort_code = 0;
    fputs("<header><h1>scope report</h1><div class=\"paths\">", out);
    for (int i = 0; i < npaths; i++) {
        scope__xml_put(out, paths[i]);
        fputs(i + 1 < npaths ? "<br>" : "", out);
    }
    fputs("</div>\n<dl class=\"facts\">\n", out);
    snprintf(buf, sizeof buf, "%d", scope_profile_rank_count(p));
    fact(out, "ranks", buf);
    snprintf(buf, sizeof buf, "%d", scope_profile_region_count(p));
    fact(out, "regions", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)calls);
    fact(out, "calls", buf);
    scope__fmt_human(buf, sizeof buf, (double)span);
    fact(out, "time span", buf);
    meta_fact(out, p, "host", "hostname");
    meta_fact(out, p, "started", "timestamp");
    meta_fact(out, p, "executable", "executable");
    meta_fact(out, p, "command", "command_line");
    fputs("</dl>\n", out);
    for (int i = 0; i < scope_profile_rank_count(p); i++) {
        int rank = scope_profile_rank(p, i);
        if (scope_profile_rank_attr_int(p, rank, "dropped_events", &v) == 0)
            dropped += v > 0 ? v : 0;
        if (scope_profile_rank_attr_int(p, rank, "mpi_abort_errorcode", &v) == 0) {
            if (!aborted++) {
                abort_rank = rank;
                abort_code = v;
            }
        } else if (scope_profile_rank_attr_int(p, rank, "complete", &v) == 0 && !v) {
            recovered++;
        }
    }
    if (aborted)
        fprintf(out, "<div class=\"warn\">Rank %d called MPI_Abort (error code %lld)%s: "
                "the run ended there.</div>\n", abort_rank, (long long)abort_code,
                aborted > 1 ? ", and other ranks too" : "");
    if (dropped)
        fprintf(out, "<div class=\"warn\">%lld events were not recorded "
                "(memory budget or disk full); raise memory_budget in the "
                "config or SCOPE_MEMORY_BUDGET.</div>\n", (long long)dropped);
    if (recovered)
        fprintf(out, "<div class=\"warn\">%d rank%s recovered after a crash: "
                "%s end%s early.</div>\n", recovered,
                recovered == 1 ? " was" : "s were",
                recovered == 1 ? "its profile" : "their profiles",
                recovered == 1 ? "s" : "");
    fputs("</header>\n", out);
}

/* The summary as JSON for the script. Reads every region's statistics
 * and, when `moved`, every region's bytes (scope_profile_bytes, as
 * `scope summary`'s sent and received). */
static int write_data(FILE *out, scope_profile *p, int64_t span, int moved)
{
    int nranks = scope_profile_rank_count(p);
    double denom = (double)span * (nranks > 0 ? nranks : 1);
    scope__colour *colours = scope__region_colours(p);
    if (!colours)
        return SCOPE_ENOMEM;
    fprintf(out, "<script type=\"application/json\" id=\"scope-data\">"
            "{\"moved\": %s, \"regions\": [", moved ? "true" : "false");
    for (int r = 0, n = 0; r < scope_profile_region_count(p); r++) {
        scope_stats s;
        scope_balance b;
        int64_t sent = 0, received = 0;
        int rc;
        if ((rc = scope_profile_stats(p, r, SCOPE_ALL_RANKS, &s)) < 0 ||
            (rc = scope_profile_balance(p, r, &b)) < 0 ||
            (moved && (rc = scope_profile_bytes(p, r, SCOPE_ALL_RANKS, &sent,
                                                &received)) < 0)) {
            free(colours);
            return rc;
        }
        const char *name = scope_profile_region_name(p, r);
        const char *col = colours[r];
        fputs(n++ ? ",\n{\"name\": " : "\n{\"name\": ", out);
        put_json_html(out, name);
        fprintf(out, ", \"colour\": \"%s\", \"calls\": %lld, \"total_ns\": "
                "%lld, \"mean_ns\": %.3f, \"min_ns\": %lld, \"max_ns\": %lld, "
                "\"std_ns\": %.3f, \"share\": %.6f, \"imbalance\": %.6f, "
                "\"ranks\": %d", col, (long long)s.calls,
                (long long)s.total_ns, s.mean_ns, (long long)s.min_ns,
                (long long)s.max_ns, s.std_ns,
                denom > 0 ? (double)s.total_ns / denom : 0.0, b.imbalance,
                b.ranks);
        if (moved)
            fprintf(out, ", \"bytes_sent\": %lld, \"bytes_received\": %lld",
                    (long long)sent, (long long)received);
        fputc('}', out);
    }
    fputs("\n]}</script>\n", out);
    free(colours);
    return 0;
}

/* 1 when the profile has a one-sided region (MPI_Put, ...). */
static int has_one_sided(scope_profile *p)
{
    for (int r = 0; r < scope_profile_region_count(p); r++)
        if (scope_region_is_one_sided(scope_profile_region_operation(p, r)))
            return 1;
    return 0;
}

/* One picture section; a picture that cannot be drawn says why instead
 * of failing the whole report. */
static void write_picture(FILE *out, scope_profile *p, const char *id,
                          const char *title, const scope__plot_opts *po)
{
    scope__plot_counts c;
    char note[512] = "";
    fprintf(out, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
    /* The picture goes to memory first: its note, which depends on what
     * was drawn, comes above it. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc = mem ? 0 : SCOPE_ENOMEM;
    if (mem) {
        if (strcmp(id, "timeline") == 0)
            rc = scope__plot_timeline(mem, p, po, &c);
        else if (strcmp(id, "flame") == 0)
            rc = scope__plot_flame(mem, p, po, &c);
        else if (strcmp(id, "comm") == 0)
            rc = scope__plot_comm(mem, p, po, &c);
        else if (strcmp(id, "comm-rma") == 0)
            rc = scope__plot_comm_kind(mem, p, po, SCOPE_COMM_ONE_SIDED, &c);
        else
            rc = scope__plot_imbalance(mem, p, po, &c);
        if (fclose(mem) != 0 && rc == 0)
            rc = SCOPE_ENOMEM;
    }
    if (rc < 0) {
        fputs("<div class=\"warn\">Not drawn: ", out);
        scope__xml_put(out, scope__plot_errmsg(rc));
        fputs("</div></section>\n", out);
        free(buf);
        return;
    }
    if (strcmp(id, "timeline") == 0) {
        snprintf(note, sizeof note, "One lane per rank and thread; boxes are "
                 "calls at their nesting depth. %lld lane%s, %lld of %lld "
                 "calls drawn%s.%s", (long long)c.lanes, c.lanes == 1 ? "" : "s", (long long)c.calls,
                 (long long)c.calls_total, c.calls < c.calls_total
                 ? " (per lane the longest; the lane label gives its count)"
                 : "", c.nesting_lost ? " Calls overlap partially, so "
                 "nesting is not shown." : "");
        if (c.messages_total > 0) {
            size_t k = strlen(note);
            snprintf(note + k, sizeof note - k, " Arrows: %lld of %lld point-to-point "
                     "messages, send to completed receive (red: a wait).",
                     (long long)c.messages, (long long)c.messages_total);
        }
    } else if (strcmp(id, "flame") == 0) {
        snprintf(note, sizeof note, "The call tree of all ranks and threads "
                 "added together: a box's width is the total time of its "
                 "call path, callers below callees. %lld boxes.",
                 (long long)c.nodes);
    } else if (strcmp(id, "comm") == 0) {
        snprintf(note, sizeof note, "Point-to-point MPI messages between world "
                 "ranks, counted at the sender (docs/format.md, \"What MPI calls "
                 "moved\"): %lld messages between %lld ranks; darker cells "
                 "carried more bytes. Hover a cell for its bytes.",
                 (long long)c.calls, (long long)c.lanes);
    } else if (strcmp(id, "comm-rma") == 0) {
        snprintf(note, sizeof note, "One-sided MPI calls (MPI_Put, MPI_Get, ...), recorded "
                 "at the origin: a put moves data from the origin to its target, a get from "
                 "the target to the origin. %lld messages between %lld ranks; darker cells "
                 "carried more bytes.", (long long)c.calls, (long long)c.lanes);
    } else {
        snprintf(note, sizeof note, "Per region, each rank's total time; "
                 "max/mean = 1.00 is perfectly even. %lld regions, %lld "
                 "bars.", (long long)c.regions, (long long)c.bars);
    }
    fprintf(out, "<p class=\"note\">%s</p>\n<div class=\"pic\">\n", note);
    fwrite(buf, 1, len, out);
    fputs("</div></section>\n", out);
    free(buf);
}

/* The wait-state table (scope_reader_waits.h, docs/analysis.md): the
 * run's waiting time by pattern and the worst (rank, region, pattern,
 * waited-for) rows, as `scope waits` prints them. A plain table: it is
 * short, and the page must read without its script too. */
static void write_waits(FILE *out, scope_profile *p, const char *id, const char *title)
{
    scope_waits *w;
    fprintf(out, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
    if (scope_profile_waits(p, SCOPE_WAITS_NO_MESSAGES, &w) < 0) {
        fputs("<div class=\"warn\">Not computed: ", out);
        scope__xml_put(out, scope_reader_errmsg());
        fputs("</div></section>\n", out);
        return;
    }
    scope_waits_totals t;
    scope_waits_totals_get(w, &t);
    char a[32], b[32];
    scope__fmt_human(a, sizeof a, (double)t.waiting_total_ns);
    scope__fmt_human(b, sizeof b, (double)t.mpi_ns);
    fprintf(out, "<p class=\"note\">Time MPI calls spent waiting for another rank "
            "(docs/analysis.md): %s of %s in MPI calls; %lld messages and %lld collective "
            "instances matched, %lld sends and %lld receives unmatched.</p>\n"
            "<table id=\"waits-table\"><tr><th>rank</th><th>region</th><th>pattern</th>"
            "<th>waited for</th><th>instances</th><th>time</th></tr>\n", a, b,
            (long long)t.messages, (long long)t.collective_instances,
            (long long)t.unmatched_sends, (long long)t.unmatched_receives);
    const scope_wait_row *rows;
    int64_t n = scope_waits_rows(w, &rows), shown = 0;
    for (int64_t i = 0; i < n && shown < 20; i++) {
        if (!rows[i].instances)
            continue;
        scope__fmt_human(a, sizeof a, (double)rows[i].time_ns);
        fprintf(out, "<tr><td>%d</td><td>", rows[i].rank);
        scope__xml_put(out, scope_profile_region_name(p, rows[i].region));
        fprintf(out, "</td><td>%s</td><td>%d</td><td>%lld</td><td>%s</td></tr>\n",
                scope_wait_pattern_name(rows[i].pattern), rows[i].waited_for,
                (long long)rows[i].instances, a);
        shown++;
    }
    fputs("</table></section>\n", out);
    scope_waits_free(w);
}

/* The I/O heat map: bytes read and written over time, one row per rank,
 * the report's heat_bins bins of equal width (scope_reader_io.h spreads
 * each call's bytes over the bins its duration covers), each cell
 * shaded by its bytes against the largest cell, white to amber. Only
 * cells with bytes are drawn; each carries its rank, bin and bytes
 * (data-read, data-written) for tests and its tooltip. */
static void io_heat(FILE *out, scope_profile *p, const scope_io_report *r)
{
    int nb = r->heat_bins;
    if (nb <= 0 || r->nranks <= 0 || !r->heat_read || !r->heat_written)
        return;
    double mx = 0;
    for (int64_t i = 0; i < (int64_t)r->nranks * nb; i++)
        if (r->heat_read[i] + r->heat_written[i] > mx)
            mx = r->heat_read[i] + r->heat_written[i];
    if (mx <= 0)
        return;
    const double left = 80, width = 900, row = 14, top = 8;
    double cw = (width - left - 10) / nb, h = top + row * r->nranks + 22;
    int64_t origin = r->heat_start_ns;
    scope_profile_time_origin_ns(p, &origin);
    char a[48], b[48], c[48];
    fputs("<p class=\"note\">Bytes read and written over time, per rank (darker: more "
          "bytes in that stretch of time).</p>\n<div class=\"pic\">", out);
    scope__svg_open(out, "io-heat", width, h);
    for (int i = 0; i < r->nranks; i++) {
        double y = top + row * i;
        fprintf(out, "<text x=\"8\" y=\"%.1f\" font-size=\"11\">rank %d</text>\n", y + row - 3,
                r->ranks[i].rank);
        for (int k = 0; k < nb; k++) {
            double rd = r->heat_read[(int64_t)i * nb + k];
            double wr = r->heat_written[(int64_t)i * nb + k];
            if (rd + wr <= 0)
                continue;
            double f = (rd + wr) / mx;
            int R = (int)(255 - f * (255 - 0xb3)), G = (int)(255 - f * (255 - 0x58)),
                B = (int)(255 - f * (255 - 0x06));
            int64_t t = r->heat_start_ns + r->heat_span_ns * k / nb - origin;
            scope__fmt_human(a, sizeof a, (double)t);
            scope__fmt_bytes(b, sizeof b, (int64_t)(rd + 0.5));
            scope__fmt_bytes(c, sizeof c, (int64_t)(wr + 0.5));
            fprintf(out, "<rect class=\"heat\" data-rank=\"%d\" data-bin=\"%d\" "
                    "data-read=\"%.3f\" data-written=\"%.3f\" x=\"%.2f\" y=\"%.1f\" "
                    "width=\"%.2f\" height=\"%.1f\" fill=\"#%02x%02x%02x\"><title>rank %d "
                    "from %s: %s read, %s written</title></rect>\n", r->ranks[i].rank, k, rd,
                    wr, left + cw * k, y, cw, row - 1, R & 255, G & 255, B & 255,
                    r->ranks[i].rank, a, b, c);
        }
    }
    scope__fmt_human(a, sizeof a, (double)(r->heat_start_ns - origin));
    scope__fmt_human(b, sizeof b, (double)(r->heat_start_ns + r->heat_span_ns - origin));
    fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">%s</text><text x=\"%.0f\" "
            "y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n</svg></div>\n", left,
            h - 6, a, width - 10, h - 6, b);
}

/* The I/O section (scope_reader_io.h, docs/io.md): the files with the
 * most bytes, with their ranks and layers, and the POSIX accesses by
 * size (Darshan's bins), as `scope io` prints them, as plain tables; then
 * the heat map of bytes over time per rank. */
static void write_io(FILE *out, scope_profile *p, const char *id, const char *title)
{
    scope_io_report *r;
    fprintf(out, "<section id=\"%s\"><h2>%s</h2>\n", id, title);
    if (scope_profile_io_report(p, NULL, &r) < 0) {
        fputs("<div class=\"warn\">Not computed: ", out);
        scope__xml_put(out, scope_reader_errmsg());
        fputs("</div></section>\n", out);
        return;
    }
    int64_t rd = 0, wr = 0;
    for (int i = 0; i < r->nranks; i++) {
        rd += r->ranks[i].bytes_read;
        wr += r->ranks[i].bytes_written;
    }
    char a[32], b[32];
    scope__fmt_bytes(a, sizeof a, rd);
    scope__fmt_bytes(b, sizeof b, wr);
    fprintf(out, "<p class=\"note\">What each rank read and wrote, file by file "
            "(docs/io.md; scope io has every counter): %d files, %s read, %s written, "
            "each byte counted once, in the outermost call.</p>\n", r->nfiles, a, b);
    if (r->files_past_bound)
        fprintf(out, "<div class=\"warn\">%lld opens were of files past the recorder's "
                "table (io_files): their calls count under one row.</div>\n",
                (long long)r->files_past_bound);
    fputs("<table id=\"io-files\"><tr><th>file</th><th>ranks</th><th>read</th>"
          "<th>written</th></tr>\n", out);
    /* the 20 files with the most bytes, largest first (a selection: n is small) */
    uint8_t *shown = calloc((size_t)r->nfiles + 1, 1);
    for (int k = 0; shown && k < 20 && k < r->nfiles; k++) {
        int best = -1;
        for (int i = 0; i < r->nfiles; i++) {
            const scope_io_file *f = &r->files[i];
            if (!shown[i] && (best < 0 || f->bytes_read + f->bytes_written >
                                              r->files[best].bytes_read + r->files[best].bytes_written))
                best = i;
        }
        shown[best] = 1;
        const scope_io_file *f = &r->files[best];
        scope__fmt_bytes(a, sizeof a, f->bytes_read);
        scope__fmt_bytes(b, sizeof b, f->bytes_written);
        fputs("<tr><td>", out);
        scope__xml_put(out, f->name);
        fprintf(out, "</td><td>%d</td><td>%s</td><td>%s</td></tr>\n", f->nranks, a, b);
    }
    free(shown);
    fputs("</table>\n<table id=\"io-sizes\"><tr><th>POSIX access size</th><th>reads</th>"
          "<th>writes</th></tr>\n", out);
    int64_t nr[SCOPE_IO_SIZE_BINS] = { 0 }, nw[SCOPE_IO_SIZE_BINS] = { 0 };
    for (int64_t i = 0; i < r->nrecords; i++)
        for (int k = 0; r->records[i].layer == SCOPE_IO_POSIX && k < SCOPE_IO_SIZE_BINS; k++) {
            nr[k] += r->records[i].size_read[k];
            nw[k] += r->records[i].size_written[k];
        }
    for (int k = 0; k < SCOPE_IO_SIZE_BINS; k++) {
        scope__fmt_bytes(a, sizeof a, scope_io_size_bin_low(k));
        if (k + 1 < SCOPE_IO_SIZE_BINS)
            scope__fmt_bytes(b, sizeof b, scope_io_size_bin_low(k + 1));
        fprintf(out, "<tr><td>%s%s%s</td><td>%lld</td><td>%lld</td></tr>\n", a,
                k + 1 < SCOPE_IO_SIZE_BINS ? " - " : " and more", k + 1 < SCOPE_IO_SIZE_BINS ? b : "",
                (long long)nr[k], (long long)nw[k]);
    }
    fputs("</table>\n", out);
    io_heat(out, p, r);
    fputs("</section>\n", out);
    scope_io_report_free(r);
}

/* The page's sections, in order: the navigation links exactly these, so
 * a section and its link cannot part. */
typedef enum { SEC_SUMMARY, SEC_PICTURE, SEC_WAITS, SEC_IO } section_kind;
typedef struct {
    const char *id, *title, *link;
    section_kind kind;
} section;
#define MAX_SECTIONS 9

/* The sections this profile's page has; returns how many. */
static int page_sections(scope_profile *p, int moved, section *sec)
{
    int n = 0;
    sec[n++] = (section){ "summary", "Summary", "Summary", SEC_SUMMARY };
    sec[n++] = (section){ "timeline", "Timeline", "Timeline", SEC_PICTURE };
    sec[n++] = (section){ "flame", "Flame graph", "Flame graph", SEC_PICTURE };
    sec[n++] = (section){ "imbalance", "Load imbalance", "Imbalance", SEC_PICTURE };
    if (moved) {
        sec[n++] = (section){ "comm", "Communication", "Communication", SEC_PICTURE };
        if (has_one_sided(p))
            sec[n++] = (section){ "comm-rma", "One-sided communication", "One-sided",
                                  SEC_PICTURE };
        sec[n++] = (section){ "waits", "Wait states", "Wait states", SEC_WAITS };
    }
    if (scope_profile_has_io(p))
        sec[n++] = (section){ "io", "I/O", "I/O", SEC_IO };
    return n;
}

static int write_report(FILE *out, scope_profile *p, char **paths,
                        int npaths, const scope__plot_opts *po)
{
    int64_t span = 0, calls = 0;
    int rc, moved = scope_profile_has_moved(p);
    section sec[MAX_SECTIONS];
    int nsec = page_sections(p, moved, sec);
    if ((rc = scope_profile_time_span_ns(p, &span)) < 0)
        return rc;
    for (int r = 0; r < scope_profile_region_count(p); r++)
        calls += scope_profile_calls(p, r, SCOPE_ALL_RANKS);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "\n<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\">\n<title>scope report: ", out);
    scope__xml_put(out, paths[0]);
    fprintf(out, "</title>\n<style>%s</style>\n</head><body>\n", report_css);
    write_header(out, p, paths, npaths, calls, span);
    fputs("<nav>", out);
    for (int i = 0; i < nsec; i++)
        fprintf(out, "<a href=\"#%s\">%s</a>", sec[i].id, sec[i].link);
    fputs("</nav>\n<main>\n", out);
    for (int i = 0; i < nsec; i++) {
        if (sec[i].kind == SEC_SUMMARY)
            fprintf(out, "<section id=\"%s\"><h2>%s</h2><p class=\"note\">Per "
                    "region over all ranks; share = total / (time span × ranks)%s. "
                    "Click a column to sort.</p>\n<table id=\"summary-table\"></table>"
                    "\n</section>\n", sec[i].id, sec[i].title,
                    moved ? "; sent and received: bytes by the byte model of "
                    "docs/format.md, as scope summary" : "");
        else if (sec[i].kind == SEC_PICTURE)
            write_picture(out, p, sec[i].id, sec[i].title, po);
        else if (sec[i].kind == SEC_WAITS)
            write_waits(out, p, sec[i].id, sec[i].title);
        else
            write_io(out, p, sec[i].id, sec[i].title);
    }
    fputs("</main>\n<div id=\"tip\"></div>\n<pre id=\"scope-check\"></pre>\n",
          out);
    if ((rc = write_data(out, p, span, moved)) < 0)
        return rc;
    fprintf(out, "<script>\n%s</script>\n</body></html>\n", report_js);
    return 0;
}

/* What write_page writes: the profile, the paths it was opened from. */
struct report {
    scope_profile *p;
    char **paths;
    int npaths;
    const scope__plot_opts *po;
};

/* scope__out_write's writer: the page into out; 0, or 1 (said). */
static int write_page(FILE *out, void *ctx)
{
    const struct report *r = ctx;
    int rc = write_report(out, r->p, r->paths, r->npaths, r->po);
    return rc < 0 ? scope__fail_msg(scope__plot_errmsg(rc)) : 0;
}

int scope_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "max-calls", required_argument, NULL, 'c' },
        { "max-regions", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    scope__plot_opts po = SCOPE__PLOT_DEFAULTS;
    const char *outpath = NULL;
    int c, rc;
    scope_profile *p;
    scope__options parse = { .cmd = "report", .help = report_help, .argc = argc, .argv = argv,
                              .shortopts = ":ho:", .longopts = opts, .profile = &p, .output = &outpath };
    while ((c = scope__next_option(&parse)) > 0) {
        switch (c) {
        case 'o':
            outpath = optarg;
            break;
        case 'c':
        case 'r':
            if ((rc = scope__parse_plot_limit("report", c, optarg, &po)) != 0)
                return rc;
            break;
        }
    }
    if (c < 0)
        return parse.status;
    struct report r = { p, argv + optind, argc - optind, &po };
    int status = scope__out_write(outpath, "report", write_page, &r);
    scope_profile_close(p);
    return status;
}
