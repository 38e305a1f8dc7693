//! Least squares, the one linear solver of the tools: `reversi pack` fits
//! the bundle's pattern model with it, and `bench --probcut-errors
//! --deep` ProbCut's bias and spread.

/// The least-squares solution of rows (x, y) ~ y = x . beta, by the normal
/// equations with a whisker of ridge, so that a column no row uses comes
/// out 0 instead of failing.
#[must_use]
pub fn fit(rows: &[(Vec<f64>, f64)]) -> Vec<f64> {
    let k = rows.first().map_or(0, |(x, _)| x.len());
    // X'X + eps I, row-major, and X'y.
    let mut normal = vec![0.0; k * k];
    let mut right = vec![0.0; k];
    for (x, y) in rows {
        for i in 0..k {
            for j in 0..k {
                normal[i * k + j] += x[i] * x[j];
            }
            right[i] += x[i] * y;
        }
    }
    for i in 0..k {
        normal[i * k + i] += 1e-6;
    }
    solve_positive(&mut normal, &right, k)
}

/// Solves `matrix` x = `right` for a symmetric positive definite `matrix`
/// (`size` x `size`, row-major; overwritten) by Cholesky's method.
pub fn solve_positive(matrix: &mut [f64], right: &[f64], size: usize) -> Vec<f64> {
    for j in 0..size {
        let mut diagonal = matrix[j * size + j];
        for k in 0..j {
            diagonal -= matrix[j * size + k] * matrix[j * size + k];
        }
        let pivot = diagonal.max(f64::MIN_POSITIVE).sqrt();
        matrix[j * size + j] = pivot;
        for i in j + 1..size {
            let mut x = matrix[i * size + j];
            for k in 0..j {
                x -= matrix[i * size + k] * matrix[j * size + k];
            }
            matrix[i * size + j] = x / pivot;
        }
    }
    // L y = right, then L^T x = y
    let mut y = right.to_vec();
    for i in 0..size {
        for k in 0..i {
            y[i] -= matrix[i * size + k] * y[k];
        }
        y[i] /= matrix[i * size + i];
    }
    for i in (0..size).rev() {
        for k in i + 1..size {
            y[i] -= matrix[k * size + i] * y[k];
        }
        y[i] /= matrix[i * size + i];
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_an_exact_line() {
        // y = 2 + 3x, and a column nothing uses.
        let rows: Vec<(Vec<f64>, f64)> = (0..5)
            .map(|x| (vec![1.0, f64::from(x), 0.0], 2.0 + 3.0 * f64::from(x)))
            .collect();
        let fit = fit(&rows);
        assert!(
            (fit[0] - 2.0).abs() < 1e-4 && (fit[1] - 3.0).abs() < 1e-4,
            "{fit:?}"
        );
        assert!(fit[2].abs() < 1e-9, "{fit:?}");
    }

    #[test]
    fn a_positive_system_is_solved() {
        // [4 2; 2 3] x = [10; 8] has x = [7/4, 3/2].
        let mut m = vec![4.0, 2.0, 2.0, 3.0];
        let x = solve_positive(&mut m, &[10.0, 8.0], 2);
        assert!(
            (x[0] - 1.75).abs() < 1e-12 && (x[1] - 1.5).abs() < 1e-12,
            "{x:?}"
        );
    }
}
