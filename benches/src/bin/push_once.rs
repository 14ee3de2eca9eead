//! scratch: push_once FILE COLS MODE(none|exact|inexact) EXPR REPEAT
use bytes::Bytes;
use parq::predicate::Expr;
use parq::read::push::{DecodeResult, PushDecoder, PushOptions};
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let file = Bytes::from(std::fs::read(&a[1]).unwrap());
    let cols: Vec<parq::read::Select> = a[2].split(',').map(|c| c.into()).collect();
    let mode = a[3].as_str();
    let expr = Expr::parse(&a[4]).unwrap();
    let repeat: usize = a[5].parse().unwrap();
    for _ in 0..repeat {
        let start = Instant::now();
        let mut fd = parq::read::push::FooterDecoder::new(file.len() as u64, Default::default());
        let footer = loop {
            match fd.try_next().unwrap() {
                parq::read::push::FooterStep::NeedsData(rs) => {
                    for r in rs {
                        fd.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                parq::read::push::FooterStep::Done(f) => break f,
            }
        };
        let mut o = PushOptions::default()
            .with_projection(Some(cols.clone()))
            .with_batch_size(8192);
        if mode != "none" {
            o = o.with_filter(Some(expr.clone())).with_filter_exact(mode == "exact");
        }
        let mut d = PushDecoder::try_new(footer, o).unwrap();
        let mut rows = 0;
        loop {
            match d.try_next().unwrap() {
                DecodeResult::NeedsData(rs) => {
                    for r in rs {
                        d.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                DecodeResult::Batch(b) => rows += b.num_rows,
                DecodeResult::Finished => break,
            }
        }
        eprintln!("{mode} rows {rows} {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    }
}
